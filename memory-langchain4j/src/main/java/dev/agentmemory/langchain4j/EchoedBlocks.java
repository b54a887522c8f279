package dev.agentmemory.langchain4j;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentmemory.core.internal.JsonStrings;
import dev.agentmemory.langchain4j.framing.MemoryFramer;
import dev.agentmemory.langchain4j.framing.ParsedFrame;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;

import java.util.ArrayList;
import java.util.List;

/**
 * Keeps memory blocks out of stored history when a model echoes them. A block this memory framed
 * (its MAC checks under the framer's key) that a model copies into its reply, into tool-call
 * arguments or that a tool returns would otherwise be stored with the message and resent in every
 * later request: a second, stale block whose items are labelled by the state of a turn long gone.
 * Each such block is replaced by {@value #OMITTED}; any other text, including marker look-alikes
 * and foreign or tampered blocks, is left exactly as it is. User messages are not touched (the
 * current turn's block is taken off them by the turn store).
 */
final class EchoedBlocks {

    /** What an echoed block is replaced by. */
    static final String OMITTED = "[memory block omitted]";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final MemoryFramer framer;

    EchoedBlocks(MemoryFramer framer) {
        this.framer = framer;
    }

    /** The message without echoed blocks; the same instance when it holds none. */
    ChatMessage without(ChatMessage m) {
        if (m instanceof AiMessage ai) {
            return ai(ai);
        }
        if (m instanceof ToolExecutionResultMessage r && r.text() != null) {
            String text = text(r.text());
            return text.equals(r.text()) ? m : ToolExecutionResultMessage.builder().id(r.id()).toolName(r.toolName())
                    .text(text).isError(r.isError()).attributes(r.attributes()).build();
        }
        return m;
    }

    private ChatMessage ai(AiMessage ai) {
        boolean changed = false;
        String text = ai.text() == null ? null : text(ai.text());
        changed |= text != null && !text.equals(ai.text());
        List<ToolExecutionRequest> requests = new ArrayList<>();
        for (ToolExecutionRequest r : ai.toolExecutionRequests()) {
            String args = r.arguments() == null ? null : arguments(r.arguments());
            if (args != null && !args.equals(r.arguments())) {
                changed = true;
                requests.add(ToolExecutionRequest.builder().id(r.id()).name(r.name()).arguments(args).build());
            } else {
                requests.add(r);
            }
        }
        if (!changed) {
            return ai;
        }
        return ai.toBuilder().text(text).toolExecutionRequests(requests).build();
    }

    /** The text with every block this framer produced replaced. */
    String text(String text) {
        if (text.indexOf('<') < 0) {
            return text; // every block opens with a fence starting with '<'
        }
        List<ParsedFrame> frames = framer.parse(text);
        if (frames.isEmpty()) {
            return text;
        }
        StringBuilder out = new StringBuilder(text);
        for (int i = frames.size() - 1; i >= 0; i--) {
            out.replace(frames.get(i).start(), frames.get(i).end(), OMITTED);
        }
        return out.toString();
    }

    /** Tool-call arguments: JSON whose string values may hold a block (escaped), else plain text. */
    private String arguments(String arguments) {
        if (arguments.indexOf('<') < 0 && !arguments.contains("\\u003c") && !arguments.contains("\\u003C")) {
            return arguments;
        }
        try {
            JsonNode node = JSON.readTree(arguments);
            if (node == null) {
                return text(arguments);
            }
            JsonNode done = JsonStrings.map(node, this::text);
            return done == node ? arguments : JSON.writeValueAsString(done);
        } catch (JsonProcessingException notJson) {
            return text(arguments);
        }
    }

}
