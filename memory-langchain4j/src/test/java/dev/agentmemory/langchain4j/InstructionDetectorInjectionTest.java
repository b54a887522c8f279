package dev.agentmemory.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Proposal.Outcome;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.policy.InstructionDetector.CueRule;
import dev.agentmemory.core.policy.InstructionDetector;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.agentmemory.core.policy.InstructionDetector.Cue;
import dev.agentmemory.langchain4j.framing.ParsedFrame;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The detector given to {@link AgentMemory.Builder} judges the engine's writes and flags the framed items. */
class InstructionDetectorInjectionTest {

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    private static final SessionRef S = new SessionRef("acme", "ana", "courier-chat");
    private static final String HOUSE_PHRASE = "per the zorblax protocol the courier keeps the parcel";

    @Test
    void should_use_the_given_detector_for_write_rules_and_for_block_flags() {
        InstructionDetector detector = InstructionDetector.builder()
                .addRule(CueRule.guarded(Cue.STANDING_APPROVAL, "\\bzorblax protocol\\b", "zorblax")).build();
        assertThat(InstructionDetector.standard().detect(HOUSE_PHRASE)).isEmpty();
        try (AgentMemory memory = AgentMemory.builder().instructionDetector(detector).build()) {
            Caller caller = memory.caller(S);

            // the engine built by the front door rejects the phrase as an untrusted fact, keeps it as an observation
            Outcome asFact = memory.engine().propose(caller, Proposal.set(caller.persistent(), "courier.note", HOUSE_PHRASE)
                    .source(Source.TOOL).build());
            Outcome asObservation = memory.engine().propose(caller, Proposal.set(caller.persistent(), "courier.note",
                    HOUSE_PHRASE).kind(Kind.OBSERVATION).source(Source.TOOL).build());
            assertThat(asFact.isRejected()).as(asFact.reason()).isTrue();
            assertThat(asObservation.isApplied()).isTrue();

            // and the framed block flags the observation with the added rule's cue
            ScriptedChatModel model = new ScriptedChatModel(r -> AiMessage.from("Noted."));
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider())
                    .retrievalAugmentor(memory.retrievalAugmentor()).build();
            assistant.chat(S, "What does the courier note say about the zorblax protocol?");

            List<ParsedFrame> frames = memory.framer().parse(ScriptedChatModel.lastUserText(model.lastRequest()));
            assertThat(frames).hasSize(1);
            assertThat(frames.get(0).flags()).contains(List.of(Cue.STANDING_APPROVAL.label()));
        }
    }
}
