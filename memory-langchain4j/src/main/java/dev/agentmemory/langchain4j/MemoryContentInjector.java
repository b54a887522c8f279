package dev.agentmemory.langchain4j;

import dev.agentmemory.core.MemoryRecord.Trust;
import dev.agentmemory.langchain4j.framing.CutItem;
import dev.agentmemory.langchain4j.framing.FramedBlock;
import dev.agentmemory.langchain4j.framing.FramedItem;
import dev.agentmemory.langchain4j.framing.MemoryFramer;
import dev.langchain4j.data.document.Metadata;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.content.injector.ContentInjector;

import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Puts retrieved contents into the user message as one injection-safe data block (see
 * {@link MemoryFramer}): background data, not instructions; each item with its date, kind,
 * source, trust and status, and in its extra attributes its layer and scope, for task state the
 * task and its status, for superseded items what replaced them ({@link FramedItem#LAYER} and the
 * other attribute names there); untrusted items flagged when they read like instructions.
 * Contents that did not come from this memory (another retriever) are shown as untrusted
 * documents, layer {@code document}.
 */
final class MemoryContentInjector implements ContentInjector {

    private final MemoryFramer framer;

    MemoryContentInjector(MemoryFramer framer) {
        this.framer = framer;
    }

    /** The block and which contents went in or were cut. */
    record Injection(ChatMessage message, List<Content> used, List<Content> cut, List<String> cutReasons,
                     String blockText, int blockTokens) {
    }

    @Override
    public ChatMessage inject(List<Content> contents, ChatMessage chatMessage) {
        return injectAndReport(contents, chatMessage).message();
    }

    Injection injectAndReport(List<Content> contents, ChatMessage chatMessage) {
        Objects.requireNonNull(contents, "contents");
        Objects.requireNonNull(chatMessage, "chatMessage");
        Map<FramedItem, Content> origin = new IdentityHashMap<>();
        List<FramedItem> items = new ArrayList<>();
        for (Content c : contents) {
            FramedItem item = item(c);
            origin.put(item, c);
            items.add(item);
        }
        FramedBlock block = framer.frame(items);
        List<Content> used = block.included().stream().map(origin::get).toList();
        List<Content> cut = block.cut().stream().map(x -> origin.get(x.item())).toList();
        List<String> reasons = block.cut().stream().map(CutItem::detail).toList();
        if (block.isEmpty() || !(chatMessage instanceof UserMessage user)) {
            return new Injection(chatMessage, block.isEmpty() ? List.of() : used, cut, reasons,
                    block.isEmpty() ? "" : block.text(), block.isEmpty() ? 0 : block.approxTokens());
        }
        ChatMessage injected;
        if (user.hasSingleText()) {
            injected = user.toBuilder().contents(List.of(new TextContent(framer.attach(user.singleText(), block))))
                    .build();
        } else {
            List<dev.langchain4j.data.message.Content> parts = new ArrayList<>();
            parts.add(new TextContent(framer.attach("", block)));
            parts.addAll(user.contents());
            injected = user.toBuilder().contents(parts).build();
        }
        return new Injection(injected, used, cut, reasons, block.text(), block.approxTokens());
    }

    static FramedItem item(Content c) {
        Metadata md = c.textSegment().metadata();
        String text = c.textSegment().text();
        if (!md.containsKey(MemoryContent.LAYER)) {
            return new FramedItem("document", text, "document", "retriever", Trust.UNTRUSTED,
                    Instant.EPOCH, "retrieved", Map.of(FramedItem.LAYER, "document"));
        }
        String id = md.containsKey(MemoryContent.KEY)
                ? md.getString(MemoryContent.KEY) + "@v" + md.getLong(MemoryContent.VERSION)
                : md.getString(MemoryContent.ID);
        Map<String, String> extra = new LinkedHashMap<>();
        extra.put(FramedItem.LAYER, md.getString(MemoryContent.LAYER));
        for (String k : List.of(MemoryContent.SCOPE, MemoryContent.SPAN, MemoryContent.TASK, MemoryContent.TASK_STATUS,
                MemoryContent.SUPERSEDED_BY, MemoryContent.VALID_FROM, MemoryContent.VALID_TO, MemoryContent.EXPIRES_AT)) {
            if (md.containsKey(k)) {
                extra.put(k.substring("memory.".length()), md.getString(k));
            }
        }
        return new FramedItem(id, text, str(md, MemoryContent.KIND, "memory"), str(md, MemoryContent.SOURCE, "unknown"),
                "trusted".equals(md.getString(MemoryContent.TRUST)) ? Trust.TRUSTED : Trust.UNTRUSTED,
                instant(md.getString(MemoryContent.OBSERVED_AT)), str(md, MemoryContent.STATUS, "current"), extra);
    }

    private static String str(Metadata md, String key, String fallback) {
        String s = md.getString(key);
        return s == null ? fallback : s;
    }

    /** An ISO-8601 instant from content metadata; the epoch when absent or unreadable. */
    static Instant instant(@Nullable String s) {
        if (s == null) {
            return Instant.EPOCH;
        }
        try {
            return Instant.parse(s);
        } catch (DateTimeParseException e) {
            return Instant.EPOCH;
        }
    }
}
