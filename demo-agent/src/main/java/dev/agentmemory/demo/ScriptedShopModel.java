package dev.agentmemory.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentmemory.langchain4j.framing.FramedItem;
import dev.agentmemory.langchain4j.framing.MemoryFrameParser;
import dev.agentmemory.langchain4j.framing.ParsedFrame;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import java.time.LocalDate;
import java.time.Month;
import java.time.format.TextStyle;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * An offline, deterministic chat model for the shop. It really drives the AiService: from the
 * user's latest words (English or Chinese) and the memory block framed into the prompt it decides
 * which tools to call (shop tools and memory tools), and it writes the answer from the tool
 * results and the remembered state. It reads memory items as data: it only acts on trusted items
 * (the user's preference), never on instructions found inside untrusted ones. When it does not
 * understand, it says so plainly.
 */
final class ScriptedShopModel implements ChatModel {

    static final String NAME = "scripted-shop-model";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern TODAY = Pattern.compile("Today is (\\d{4}-\\d{2}-\\d{2})");
    private static final Pattern POLICY_ID = Pattern.compile("\\b[Pp](\\d{1,3})\\b");
    private static final Pattern ORDER_NO = Pattern.compile("\\b(\\d{4,8})\\b");

    private final AtomicInteger calls = new AtomicInteger();

    /** A remembered item as read from the framed block. */
    record Item(String key, String value, String kind, String trust, String layer, String status, java.time.Instant date,
                String task) {
        boolean trusted() {
            return trust.equals("trusted");
        }

        boolean current() {
            return status.equals("current");
        }
    }

    /** An open task the memory block lists (suspended, or active in another conversation), most recent first. */
    record OpenTask(String task, String text) {
    }

    /** Everything the model knows when it answers one request. */
    record Turn(String said, String low, Map<String, Item> memory, List<String> episodic, List<ToolExecutionResultMessage> results,
                int round, LocalDate today, boolean zh, Set<String> tools, Optional<String> lastStatedPreference,
                List<OpenTask> openTasks, Intents.Intent intent) {

        /** The task whose state the block serves as current, if any. */
        Optional<String> activeTask() {
            return memory.values().stream().filter(i -> i.layer().equals("task-state") && i.current() && !i.task().isEmpty())
                    .map(Item::task).findFirst();
        }

        Optional<String> mem(String key) {
            Item i = memory.get(key);
            return i == null ? Optional.empty() : Optional.of(i.value());
        }

        /** The original order that has an exchange request or an exchange order remembered. */
        Optional<String> exchangeOrigin() {
            for (String k : memory.keySet()) {
                Matcher m = Pattern.compile("order:([^.]+)\\.(exchangeColor|exchangeOrder)").matcher(k);
                if (m.matches()) {
                    return Optional.of(m.group(1));
                }
            }
            return mem("order.current");
        }

        String result(int i) {
            return i < results.size() ? results.get(i).text() : "";
        }

        String t(String en, String cn) {
            return zh ? cn : en;
        }
    }

    @Override
    public ChatResponse doChat(ChatRequest request) {
        calls.incrementAndGet();
        List<ChatMessage> messages = request.messages();
        int lastUser = -1;
        for (int i = messages.size() - 1; i >= 0; i--) {
            if (messages.get(i) instanceof UserMessage) {
                lastUser = i;
                break;
            }
        }
        if (lastUser < 0) {
            return text("I have no question to answer.");
        }
        String raw = userText((UserMessage) messages.get(lastUser));
        Map<String, Item> memory = new LinkedHashMap<>();
        List<String> episodic = new ArrayList<>();
        List<OpenTask> openTasks = new ArrayList<>();
        for (ParsedFrame f : MemoryFrameParser.parse(raw)) {
            for (FramedItem it : f.items()) {
                if (it.extra().getOrDefault(FramedItem.LAYER, "").equals("tasks")) {
                    openTasks.add(new OpenTask(it.extra().getOrDefault(FramedItem.TASK, ""), it.text()));
                } else {
                    read(it, memory, episodic);
                }
            }
        }
        String said = MemoryFrameParser.stripFrames(raw).trim();
        List<ToolExecutionResultMessage> results = new ArrayList<>();
        int round = 0;
        for (int i = lastUser + 1; i < messages.size(); i++) {
            if (messages.get(i) instanceof ToolExecutionResultMessage r) {
                results.add(r);
            } else if (messages.get(i) instanceof AiMessage a && a.hasToolExecutionRequests()) {
                round++;
            }
        }
        LocalDate today = LocalDate.of(2024, 10, 19);
        for (ChatMessage m : messages) {
            if (m instanceof SystemMessage s) {
                Matcher mt = TODAY.matcher(s.text());
                if (mt.find()) {
                    today = LocalDate.parse(mt.group(1));
                }
            }
        }
        Item lang = memory.get("preference.language");
        boolean preferred = lang != null && lang.trusted() && lang.kind().equals("preference");
        boolean zh = preferred && lang != null ? lang.value().toLowerCase(Locale.ROOT).contains("chinese") || lang.value().contains("中文")
                : cjk(MemoryFrameParser.stripFrames(raw));
        Set<String> tools = request.toolSpecifications() == null ? Set.of()
                : request.toolSpecifications().stream().map(ToolSpecification::name).collect(Collectors.toSet());
        // the preference the conversation stated last: the latest remember(kind preference) call before this turn
        Optional<String> lastStated = Optional.empty();
        for (int i = 0; i < lastUser; i++) {
            if (messages.get(i) instanceof AiMessage a && a.hasToolExecutionRequests()) {
                for (ToolExecutionRequest r : a.toolExecutionRequests()) {
                    if (r.name().equals("remember")) {
                        try {
                            var args = JSON.readTree(r.arguments());
                            if (args.path("kind").asText().equals("preference")) {
                                lastStated = Optional.of(args.path("key").asText());
                            }
                        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                            // not ours: ignore
                        }
                    }
                }
            }
        }
        Turn turn = new Turn(said, said.toLowerCase(Locale.ROOT), memory, episodic, results, round, today, zh, tools, lastStated,
                openTasks, Intents.parse(said));
        return decide(turn);
    }

    private static boolean cjk(String s) {
        return s.codePoints().anyMatch(cp -> Character.UnicodeScript.of(cp) == Character.UnicodeScript.HAN);
    }

    /** How many requests the model answered. */
    int calls() {
        return calls.get();
    }

    private static void read(FramedItem it, Map<String, Item> memory, List<String> episodic) {
        int eq = it.text().indexOf(" = ");
        if (it.id().contains("@v") && eq > 0) {
            String key = it.text().substring(0, eq);
            Item item = new Item(key, it.text().substring(eq + 3), it.kind(), it.trust().name().toLowerCase(java.util.Locale.ROOT),
                    it.extra().getOrDefault(FramedItem.LAYER, ""), it.status(), it.date(), it.extra().getOrDefault(FramedItem.TASK, ""));
            Item before = memory.get(key);
            // an earlier (superseded, archived) version shown beside the current one never replaces it
            if (before == null || !before.current() || item.current()) {
                memory.put(key, item);
            }
        } else {
            episodic.add(it.text());
        }
    }

    private static String userText(UserMessage m) {
        if (m.hasSingleText()) {
            return m.singleText();
        }
        return m.contents().stream().filter(c -> c instanceof TextContent).map(c -> ((TextContent) c).text())
                .collect(Collectors.joining("\n"));
    }

    // ------------------------------------------------------------------ intents

    /**
     * The memory intents first (read by {@link Intents}: forget, recall, continue, a preference,
     * a correction), then the shop's own requests, then a fallback that lists what is understood.
     */
    private ChatResponse decide(Turn t) {
        String l = t.low();
        Intents.Intent intent = t.intent();
        switch (intent.act()) {
            case FORGET -> {
                return forget(t);
            }
            case RECALL -> {
                return recall(t);
            }
            case CONTINUE -> {
                return resume(t);
            }
            case PREFERENCE -> {
                return preference(t, intent.mentions(Intents.Slot.LANGUAGE) ? Intents.Slot.LANGUAGE : Intents.Slot.CHANNEL);
            }
            default -> {
                // the shop's requests below; a correction of a fact after the address rule
            }
        }
        if (has(l, "answer in", "reply in", "用什么语言")) {
            return text(t.t("Which language would you like me to answer in?", "您希望我用哪种语言回答？"));
        }
        if (has(l, "broadband", "宽带", "internet", "wifi", "wi-fi", "router", "路由器")) {
            return broadband(t);
        }
        if (has(l, "status", "summary", "状态", "进度")) {
            return status(t);
        }
        if (has(l, "approval", "approve", "审批", "p20")) {
            return policy(t, "P20");
        }
        if (has(l, "policy", "limit", "限额", "政策", "p17", "p05")) {
            Matcher m = POLICY_ID.matcher(t.said());
            return policy(t, m.find() ? "P" + (m.group(1).length() == 1 ? "0" + m.group(1) : m.group(1)) : "P17");
        }
        if (has(l, "trip", "travel", "出差", "旅行", "这趟")) {
            return trip(t);
        }
        if (has(l, "address", "地址", "ship it to", "deliver it to", "寄到", "ship the replacement to", "send the replacement to",
                "ship the exchange to", "ship them to", "send it to")) {
            return address(t);
        }
        if (intent.act() == Intents.Act.CORRECTION) {
            return correction(t);
        }
        if (has(l, "submit", "place the exchange", "create the exchange", "go ahead", "提交", "下单")) {
            return submit(t);
        }
        if (has(l, "exchange", "换货", "换一个", "换成", "swap")) {
            return exchange(t);
        }
        if (has(l, "return", "refund", "退货", "退款", "silent", "broken", "没声音", "坏了")) {
            return returnRequest(t);
        }
        if (has(l, "order", "订单")) {
            return orderLookup(t);
        }
        if (has(l, "hello", "hi ", "hey", "你好", "您好") || l.equals("hi")) {
            return text(t.t("Hello! I'm the shop's assistant. I can look up your orders, handle returns and exchanges, "
                    + "change delivery addresses and explain shop policies.",
                    "您好！我是本店的客服助手，可以查询订单、办理退换货、修改收货地址和解释店铺政策。"));
        }
        if (has(l, "thank", "谢谢", "bye", "再见")) {
            return text(t.t("You're welcome!", "不客气！"));
        }
        return text(t.t("Sorry, I don't understand \"" + t.said() + "\". " + UNDERSTOOD_EN,
                "抱歉，我不明白“" + t.said() + "”。" + UNDERSTOOD_ZH));
    }

    /** What the offline model understands, for the fallback answer. */
    static final String UNDERSTOOD_EN = "I'm the shop's offline assistant (a scripted model with fixed rules), and I "
            + "understand: returns and exchanges (\"I want to return my earbuds\", \"exchange them in white\", \"submit the "
            + "exchange\"), delivery addresses (\"ship it to ...\"), policies (\"policy P17\"), and what memory is for: a "
            + "preference (\"always answer in French\", \"I prefer email\") and its change (\"actually I prefer English, not "
            + "French\", \"switch to English\", \"no longer French\"), a correction (\"no, the colour is blue\", \"my order "
            + "number is actually ...\"), \"what do you remember about me?\", \"forget my language preference\" or \"forget "
            + "that\", and \"where were we?\" or \"back to my exchange\". /help lists the commands.";
    static final String UNDERSTOOD_ZH = "我是本店的离线客服助手（按固定规则回答的脚本模型），能理解：退换货（“我想退货，耳机坏了”、“换成白色”、"
            + "“提交换货”）、收货地址（“地址改成……”）、店铺政策（“P17 政策”），以及记忆相关的话：偏好（“以后请用中文回答”）和它的更改"
            + "（“其实我更喜欢英文”、“别再用中文了”）、更正（“不对，颜色是蓝色”、“订单号其实是……”）、“你记得我什么”、"
            + "“忘掉我的语言偏好”、“继续刚才的换货”。/help 列出命令。";

    private ChatResponse returnRequest(Turn t) {
        String product = product(t.low()).orElse(null);
        if (product == null) {
            return text(t.t("Which item would you like to return? Tell me the product or the order number.",
                    "您想退哪件商品？请告诉我商品名称或订单号。"));
        }
        String task = "return-" + product;
        if (t.round() == 0) {
            List<ToolExecutionRequest> calls = new ArrayList<>();
            calls.add(call(t, "startTask", "task", task, "title", "Return or exchange of the " + product));
            calls.add(call(t, "lookupOrder", "query", product));
            issue(t.said()).ifPresent(i -> calls.add(call(t, "updateState", "key", "issue", "value", i, "userQuote", t.said())));
            return calls(calls);
        }
        String found = t.result(1);
        Matcher m = Pattern.compile("Order (\\S+): ([^,]+), colour (\\w+), bought (\\S+),.*Return window ends (\\S+) \\((still open|closed)")
                .matcher(found);
        if (!m.find()) {
            return text(t.t("I could not find a matching order: " + found, "没有找到匹配的订单：" + found));
        }
        boolean open = m.group(6).equals("still open");
        return text(t.t("I found order " + m.group(1) + ": " + m.group(2) + " (" + m.group(3) + "), bought " + m.group(4)
                        + ". " + (open ? "It is within the return window (until " + m.group(5) + "), so I can take them back "
                        + "for a refund or exchange them. Which would you prefer?" : "The return window closed on " + m.group(5) + "."),
                "找到订单 " + m.group(1) + "：" + m.group(2) + "（" + color(m.group(3), true) + "），购买于 " + m.group(4) + "。"
                        + (open ? "仍在退换期内（至 " + m.group(5) + "），可以退款或换货，您想选哪一种？" : "退换期已于 " + m.group(5) + " 结束。")));
    }

    private ChatResponse orderLookup(Turn t) {
        Matcher m = ORDER_NO.matcher(t.said());
        String query = m.find() ? m.group(1) : product(t.low()).orElse(null);
        if (query == null) {
            return text(t.t("Which order do you mean? Give me its number or the item.", "请问是哪个订单？请提供订单号或商品名称。"));
        }
        if (t.round() == 0) {
            return calls(List.of(call(t, "lookupOrder", "query", query)));
        }
        return text(t.t(t.result(0), "查询结果：" + t.result(0)));
    }

    private ChatResponse exchange(Turn t) {
        Optional<String> order = t.mem("order.current");
        Optional<String> color = color(t.low());
        if (order.isEmpty()) {
            return text(t.t("Which order would you like to exchange? Tell me the item or the order number.",
                    "请问要换哪个订单的商品？请告诉我商品或订单号。"));
        }
        if (color.isEmpty()) {
            return text(t.t("Which colour would you like the replacement in?", "请问换成什么颜色？"));
        }
        String c = color.get();
        String said = colorWord(t.said(), c);
        // the decision is recorded in the user's own word for it (the tools refuse words the user did not say)
        String choice = t.said().contains("换货") ? "换货" : t.low().contains("exchange") ? "exchange"
                : t.low().contains("swap") ? "swap" : t.said().contains("换") ? "换" : "exchange";
        if (t.round() == 0) {
            return calls(List.of(
                    call(t, "updateState", "key", "exchange.choice", "value", choice, "kind", "decision", "userQuote", t.said()),
                    call(t, "updateState", "key", "exchange.color", "value", said, "userQuote", t.said()),
                    call(t, "remember", "key", "order:" + order.get() + ".exchangeColor", "value", said, "kind", "fact",
                            "userQuote", t.said())));
        }
        long refused = t.results().stream().map(ToolExecutionResultMessage::text).filter(r -> r.startsWith("Not saved")).count();
        if (refused == t.results().size()) {
            return text(t.t("Sorry, I could not note the exchange; please say it again in your own words, e.g. \"I'd rather "
                    + "exchange them, in white\".", "抱歉，换货没有记下来；请用您自己的话再说一次，例如“我想换货，换成白色”。"));
        }
        String original = t.mem("order:" + order.get() + ".color").orElse("?");
        return text(t.t("Noted: an exchange instead of a refund for order " + order.get() + ". The replacement will be " + c
                        + "; the pair you have now is " + original + ". Tell me when to submit it (and where to ship it).",
                "已记录：订单 " + order.get() + " 改为换货而不是退款。新的一副是" + color(c, true) + "，您手上的原件是"
                        + color(original, true) + "。确认提交（以及收货地址）时告诉我。"));
    }

    private static String keyOf(Intents.Slot slot) {
        return slot == Intents.Slot.LANGUAGE ? "preference.language" : "preference.contact";
    }

    /** The value to store: the canonical name for a Latin-script word (English), else the user's own word (英语). */
    private static String stored(Intents.Mention m) {
        return m.said().chars().allMatch(c -> c < 128) ? m.value() : m.said();
    }

    /** State or change a preference (the new value is the mention not negated), or drop it when every mention is negated. */
    private ChatResponse preference(Turn t, Intents.Slot slot) {
        String key = keyOf(slot);
        Optional<Intents.Mention> wanted = t.intent().wanted(slot);
        Item current = t.memory().get(key);
        Optional<String> before = Optional.ofNullable(current).filter(i -> i.trusted() && i.kind().equals("preference"))
                .map(Item::value);
        if (wanted.isEmpty()) {
            return drop(t, slot, t.intent().unwanted(slot).orElseThrow(), before);
        }
        String value = stored(wanted.get());
        if (t.round() == 0) {
            return calls(List.of(call(t, "remember", "key", key, "value", value, "kind", "preference", "userQuote", t.said())));
        }
        if (!t.result(0).startsWith("Remembered") && !t.result(0).startsWith("Saved")) {
            return text(t.t("Sorry, I could not keep that preference; please say it again in your own words.",
                    "抱歉，这个偏好没有记下来；请用您自己的话再说一次。"));
        }
        Optional<String> replaced = before.filter(b -> !b.equals(value));
        if (slot == Intents.Slot.CHANNEL) {
            return text(t.t("Noted: you prefer to be contacted by " + value + ". I'll keep that for your next visits too."
                            + replaced.map(b -> " It replaces " + b + " (/history " + key + " shows both versions).").orElse(""),
                    "好的，已记下：您希望通过" + value + "联系。以后来访也会沿用。"
                            + replaced.map(b -> "（取代了之前的" + b + "；/history " + key + " 显示两个版本。）").orElse("")));
        }
        String was = replaced.map(b -> " It replaces " + b + "; /history " + key + " shows both versions.").orElse("");
        String wasZh = replaced.map(b -> "（取代了之前的" + b + "；/history " + key + " 显示两个版本。）").orElse("");
        return switch (wanted.get().value()) {
            case "Chinese" -> text("好的，从现在起我会用中文回答。" + wasZh);
            case "English" -> text("OK, from now on I will answer in English." + was);
            case "French" -> text("D'accord, je répondrai désormais en français. (Noted as your preference; this offline"
                    + " model writes only English and Chinese, a real model follows it.)" + was);
            default -> text("Noted: from now on answers in " + value + ". (This offline model writes only English and"
                    + " Chinese; a real model follows the preference.)" + was);
        };
    }

    /** "No longer French": forget the preference when it is the value named, through the forget tool. */
    private ChatResponse drop(Turn t, Intents.Slot slot, Intents.Mention unwanted, Optional<String> before) {
        String key = keyOf(slot);
        boolean language = slot == Intents.Slot.LANGUAGE;
        if (before.isEmpty() || !Intents.canonical(slot, before.get()).equals(unwanted.value())) {
            String now = before.map(b -> t.t(" (your preference is " + b + ")", "（您的偏好是" + b + "）"))
                    .orElse(t.t(" (no preference is remembered)", "（目前没有记住任何偏好）"));
            return text(t.t("Nothing to change: I was not set to " + (language ? "answer in " : "contact you by ") + unwanted.value()
                    + now + ".", "无需更改：我没有设定" + (language ? "用" + unwanted.said() + "回答" : "通过" + unwanted.said() + "联系")
                    + now + "。"));
        }
        if (t.round() == 0) {
            return calls(List.of(call(t, "forget", "key", key, "scope", "persistent", "userQuote", t.said())));
        }
        if (!t.result(0).startsWith("Forgot")) {
            return text(t.t("Sorry, I could not drop that preference: " + t.result(0), "抱歉，这个偏好没有删除：" + t.result(0)));
        }
        String old = before.get();
        return text(language
                ? t.t("OK, I will no longer answer in " + unwanted.value() + ": I have forgotten that preference, so I answer in the"
                        + " language you write in.", "好的，以后不再用" + old + "回答；这项偏好已删除，我会用您书写的语言回答。")
                : t.t("OK, I will no longer contact you by " + unwanted.value() + ": I have forgotten that preference.",
                        "好的，以后不再通过" + old + "联系您；这项偏好已删除。"));
    }

    private ChatResponse broadband(Turn t) {
        if (t.round() == 0) {
            return calls(List.of(
                    call(t, "startTask", "task", "broadband", "title", "Broadband fault at home"),
                    call(t, "updateState", "key", "broadband.issue", "value", t.said(), "userQuote", t.said())));
        }
        return text(t.t("Sorry to hear about the broadband. We are an electronics shop, so the line itself is your "
                        + "provider's; I noted the fault in a separate task. Your other request is on hold, just say when to go back to it.",
                "宽带的问题很抱歉。我们是电子产品商店，线路由您的运营商负责；我已把故障记在单独的任务里。您之前的请求先暂停，随时可以回来继续。"));
    }

    /**
     * Continue a task: the open task the memory block lists whose id or title names the topic said
     * ("back to my exchange"), else the latest one ("where were we?"), resumed with resumeTask.
     */
    private ChatResponse resume(Turn t) {
        Optional<String> topic = t.intent().mentions().stream().filter(m -> m.slot() == Intents.Slot.TOPIC).map(Intents.Mention::value)
                .findFirst();
        Optional<OpenTask> open = t.openTasks().stream().filter(o -> topic.map(w -> about(o.task() + " " + o.text(), w)).orElse(true))
                .findFirst();
        Optional<String> active = t.activeTask();
        if (open.isEmpty() && active.isPresent() && topic.map(w -> about(active.get(), w)).orElse(true)) {
            return status(t);
        }
        if (open.isEmpty()) {
            return text(topic.isPresent()
                    ? t.t("I have no open request about the " + topic.get() + ".", "没有关于" + thing(topic.get(), true) + "的未完成请求。")
                    : t.t("Nothing is open at the moment; what can I do for you?", "目前没有未完成的请求；请问有什么可以帮您？"));
        }
        String task = open.get().task();
        if (t.round() == 0) {
            return calls(List.of(call(t, "resumeTask", "task", task)));
        }
        String r = t.result(0);
        if (!r.startsWith("Task ")) {
            return text(t.t("I could not go back to " + task + ": " + r, "无法回到 " + task + "：" + r));
        }
        String what = task.startsWith("return-") ? task.substring("return-".length()) : task;
        Matcher state = Pattern.compile("; state: (.*?)\\. Resume it").matcher(open.get().text());
        String was = state.find() && !state.group(1).equals("none") ? state.group(1) : "";
        return text(t.t("Back to your " + what + " request; everything is as you left it" + (was.isEmpty() ? "." : ": " + was + ".")
                        + " " + r,
                "回到您关于" + thing(what, true) + "的请求，状态保持不变" + (was.isEmpty() ? "。" : "：" + was + "。")));
    }

    /** Whether a task's id and description are about {@code topic} (a return and an exchange are one request). */
    private static boolean about(String task, String topic) {
        String low = task.toLowerCase(Locale.ROOT);
        return topic.equals("exchange") || topic.equals("return") ? low.contains("exchange") || low.contains("return")
                : low.contains(topic);
    }

    /** A topic in the user's language. */
    private static String thing(String topic, boolean zh) {
        if (!zh) {
            return topic;
        }
        return switch (topic) {
            case "earbuds" -> "耳机";
            case "charger" -> "充电器";
            case "watch" -> "手表";
            case "broadband" -> "宽带";
            case "exchange" -> "换货";
            case "return" -> "退货";
            default -> topic;
        };
    }

    /** A correction of a fact: the exchange's colour, or the order number. */
    private ChatResponse correction(Turn t) {
        Optional<Intents.Mention> colour = t.intent().wanted(Intents.Slot.COLOUR);
        if (colour.isPresent()) {
            return correctColour(t, colour.get());
        }
        return correctOrder(t, t.intent().wanted(Intents.Slot.ORDER).orElseThrow().value());
    }

    private ChatResponse correctColour(Turn t, Intents.Mention colour) {
        Optional<String> origin = t.exchangeOrigin();
        String persistentKey = origin.map(o -> "order:" + o + ".exchangeColor").orElse("");
        Optional<String> inTask = t.mem("exchange.color");
        Optional<String> kept = t.mem(persistentKey);
        if (inTask.isEmpty() && kept.isEmpty()) {
            return exchange(t); // nothing to correct yet: the first statement of the exchange
        }
        Optional<String> submitted = t.mem("order:" + origin.orElse("") + ".exchangeOrder");
        if (submitted.isPresent()) {
            return text(t.t("The exchange is already submitted (order " + submitted.get() + "); a different colour needs a new"
                    + " exchange.", "换货已经提交（订单 " + submitted.get() + "）；换颜色需要重新办理换货。"));
        }
        String word = colorWord(t.said(), colour.value());
        if (t.round() == 0) {
            List<ToolExecutionRequest> calls = new ArrayList<>();
            if (inTask.isPresent() && t.activeTask().isPresent()) {
                calls.add(call(t, "updateState", "key", "exchange.color", "value", word, "userQuote", t.said()));
            }
            if (kept.isPresent()) {
                calls.add(call(t, "remember", "key", persistentKey, "value", word, "kind", "fact", "userQuote", t.said()));
            }
            if (calls.isEmpty()) {
                return exchange(t);
            }
            return calls(calls);
        }
        long refused = t.results().stream().map(ToolExecutionResultMessage::text).filter(r -> !r.startsWith("Saved")).count();
        if (refused == t.results().size()) {
            return text(t.t("Sorry, I could not change the colour: " + t.result(0), "抱歉，颜色没有改成：" + t.result(0)));
        }
        String old = inTask.or(() -> kept).orElse("?");
        String original = origin.flatMap(o -> t.mem("order:" + o + ".color")).orElse("?");
        return text(t.t("Corrected: the replacement will be " + colour.value() + ", not " + color(old, false) + " (the pair you have"
                        + " now is " + original + "). The old colour stays in the history as a superseded version"
                        + " (/history exchange.color).",
                "已更正：新的一副是" + color(colour.value(), true) + "，不是" + color(old, true) + "（您手上的原件是" + color(original, true)
                        + "）。旧的颜色作为被取代的版本保留在历史中（/history exchange.color）。"));
    }

    private ChatResponse correctOrder(Turn t, String number) {
        if (t.round() == 0) {
            return calls(List.of(call(t, "lookupOrder", "query", number)));
        }
        String r = t.result(0);
        Optional<String> before = t.mem("order.current").filter(o -> !o.equals(number));
        if (r.startsWith("No order") || before.isEmpty()) {
            return text(t.t(r, "查询结果：" + r));
        }
        return text(t.t("Corrected: your order is " + number + ", not " + before.get() + ". " + r,
                "已更正：订单号是 " + number + "，不是 " + before.get() + "。查询结果：" + r));
    }

    private ChatResponse trip(Turn t) {
        Optional<String> dest = destination(t.said());
        Optional<LocalDate> date = date(t.said(), t.today());
        if (dest.isEmpty() && date.isEmpty()) {
            return text(t.t("Where and when is the trip?", "请问这趟行程去哪里、什么时候？"));
        }
        if (t.round() == 0) {
            List<ToolExecutionRequest> calls = new ArrayList<>();
            dest.ifPresent(d -> calls.add(call(t, "updateState", "key", "trip.destination", "value", d, "userQuote", t.said())));
            dateWords(t.said()).ifPresent(d -> calls.add(call(t, "updateState", "key", "trip.date", "value", d,
                    "userQuote", t.said())));
            return calls(calls);
        }
        String where = dest.orElse(t.mem("trip.destination").orElse("?"));
        String when = date.map(LocalDate::toString).orElse(t.mem("trip.date").orElse("?"));
        return text(t.t("Noted for this request: the trip is to " + where + " on " + when
                        + ". I keep it with this task only, not as your home address.",
                "已记下（仅限本次请求）：这趟行程去" + where + "，日期 " + when + "。这不会被当作您的常住地址。"));
    }

    private ChatResponse policy(Turn t, String id) {
        String forDate = id.equals("P17") ? t.mem("trip.date").flatMap(d -> date(d, t.today())).map(LocalDate::toString)
                .orElse("") : "";
        if (t.round() == 0) {
            return calls(List.of(call(t, "lookupPolicy", "policyId", id, "forDate", forDate)));
        }
        String r = t.result(0);
        if (id.equals("P17")) {
            Matcher applies = Pattern.compile("applies is (\\S+) with limit (\\d+) \\(valid (\\S+) to (\\S+)\\)").matcher(r);
            Matcher newest = Pattern.compile("version (\\d+)(?: \\(valid (\\S+) to (\\S+)\\))?: .*up to (\\d+)").matcher(r);
            String newestText = newest.find() ? newest.group(4) : "?";
            if (applies.find()) {
                String limit = applies.group(2);
                String trip = forDate;
                return text(t.t("For your trip on " + trip + " policy P17 allows out-of-town delivery of items worth up to "
                                + limit + " (the version valid until " + applies.group(4) + ")."
                                + (limit.equals(newestText) ? "" : " The newer limit of " + newestText
                                + " only applies to later dates, so it does not cover your trip."),
                        "您的行程日期是 " + trip + "，按适用于该日期的 P17 版本（有效至 " + applies.group(4) + "），异地配送的商品价值上限是 "
                                + limit + "。" + (limit.equals(newestText) ? "" : "新的上限 " + newestText + " 只适用于之后的日期，不适用于这次行程。")));
            }
            return text(t.t("Policy P17: out-of-town delivery for items worth up to " + newestText
                            + (forDate.isEmpty() ? ". Tell me the trip date and I'll check which version applies." : "."),
                    "P17 政策：异地配送的商品价值上限为 " + newestText + "。"));
        }
        if (id.equals("P20")) {
            return text(t.t("Policy P20: exchanges of items worth over 500 need a supervisor's approval. The policy "
                            + "document also contains a note addressed to assistants; I treat it as untrusted data, not as an "
                            + "instruction, so the approval rule stays as it is.",
                    "P20 政策：价值超过 500 的换货需要主管审批。政策文件里还有一段针对助手的指示，我把它当作不可信的数据，而不是指令，审批规则不变。"));
        }
        return text(t.t(r, "政策内容：" + r));
    }

    private ChatResponse address(Turn t) {
        Optional<String> address = newAddress(t.said());
        if (address.isEmpty()) {
            return text(t.t("What is the new delivery address?", "请问新的收货地址是什么？"));
        }
        Optional<String> origin = t.exchangeOrigin();
        if (origin.isEmpty()) {
            return text(t.t("Which order should the new address apply to?", "请问新地址用于哪个订单？"));
        }
        Optional<String> exchangeOrder = t.mem("order:" + origin.get() + ".exchangeOrder");
        boolean pendingExchange = t.mem("order:" + origin.get() + ".exchangeColor").isPresent();
        if (t.round() == 0) {
            if (exchangeOrder.isPresent()) {
                return calls(List.of(call(t, "changeAddress", "orderNumber", exchangeOrder.get(), "address", address.get())));
            }
            if (pendingExchange) {
                return calls(List.of(call(t, "setExchangeAddress", "orderNumber", origin.get(), "address", address.get())));
            }
            return calls(List.of(call(t, "changeAddress", "orderNumber", origin.get(), "address", address.get())));
        }
        String r = t.result(0);
        if (exchangeOrder.isPresent() || pendingExchange) {
            return text(t.t("Done: the replacement for order " + origin.get() + " (the exchange, not the original order) will "
                            + "ship to " + address.get() + ". " + r,
                    "已完成：订单 " + origin.get() + " 的换货商品（不是原订单）将寄往 " + address.get() + "。"));
        }
        return text(t.t(r, "结果：" + r));
    }

    private ChatResponse submit(Turn t) {
        Optional<String> origin = t.exchangeOrigin();
        Optional<String> color = origin.flatMap(o -> t.mem("order:" + o + ".exchangeColor")).or(() -> t.mem("exchange.color"))
                .map(c -> color(c.toLowerCase(Locale.ROOT)).orElse(c));
        if (origin.isEmpty() || color.isEmpty()) {
            return text(t.t("There is no exchange waiting to be submitted.", "目前没有待提交的换货。"));
        }
        if (t.round() == 0) {
            return calls(List.of(call(t, "createExchange", "orderNumber", origin.get(), "color", color.get())));
        }
        String r = t.result(0);
        Matcher m = Pattern.compile("order (\\S+?)[ ,.(]").matcher(r);
        String id = m.find() ? m.group(1) : "?";
        return text(t.t("Your exchange is in: order " + id + " (" + color.get() + " replacement for order " + origin.get()
                        + "). " + r,
                "换货已提交：订单 " + id + "（原订单 " + origin.get() + " 的" + color(color.get(), true) + "替换品）。"));
    }

    private ChatResponse forget(Turn t) {
        Intents.Intent intent = t.intent();
        String key = has(t.low(), "language", "语言") || intent.mentions(Intents.Slot.LANGUAGE) ? "preference.language"
                : has(t.low(), "contact", "联系") || intent.mentions(Intents.Slot.CHANNEL) ? "preference.contact"
                : Pattern.compile("\\b(that|it|this|what i (just )?said)\\b|它|这个|那个|刚才|忘了吧").matcher(t.low()).find()
                ? t.lastStatedPreference().filter(k -> t.memory().containsKey(k)).or(() -> lastPreference(t)).orElse(null) : null;
        if (key == null) {
            return text(t.t("I'm not sure what to forget; tell me which preference, e.g. \"forget my language preference\".",
                    "我不确定要忘记什么；请告诉我是哪一项偏好，例如“忘记我的语言偏好”。"));
        }
        String what = what(key, t);
        if (t.round() == 0) {
            return calls(List.of(call(t, "forget", "key", key, "scope", "persistent", "userQuote", t.said())));
        }
        if (!t.result(0).startsWith("Forgot") && !t.result(0).startsWith("Forgotten")) {
            return text(t.t("I could not forget " + what + ": there was nothing to forget, or you need to ask in your own words.",
                    "无法忘记" + what + "：没有可忘记的内容，或者需要您亲口提出。"));
        }
        return text(t.t("Done: I have forgotten " + what + ". It is removed from my memory, including the message where you"
                        + " said it, and I will not use it again.",
                "好的，我已忘记" + what + "。它已从记忆中删除（包括您说这句话的那条消息），以后不会再用。"));
    }

    /** The preference the user stated last, by the date of the remembered items. */
    private static Optional<String> lastPreference(Turn t) {
        return t.memory().values().stream().filter(i -> i.kind().equals("preference") && i.trusted())
                .max(java.util.Comparator.comparing(i -> i.date() == null ? java.time.Instant.MIN : i.date()))
                .map(Item::key);
    }

    private static String what(String key, Turn t) {
        return switch (key) {
            case "preference.language" -> t.t("your language preference", "您的语言偏好");
            case "preference.contact" -> t.t("how you prefer to be contacted", "您偏好的联系方式");
            default -> t.t("your preference " + key, "您的偏好 " + key);
        };
    }

    /**
     * "What do you remember about me?": everything current in the memory block, read as data:
     * the user's preferences, the facts kept across sessions, the state of the current request and
     * the open requests. Nothing is written.
     */
    private ChatResponse recall(Turn t) {
        List<String> preferences = new ArrayList<>();
        List<String> facts = new ArrayList<>();
        List<String> request = new ArrayList<>();
        for (Item i : t.memory().values()) {
            if (!i.current()) {
                continue;
            }
            if (i.kind().equals("preference") && i.trusted()) {
                preferences.add(switch (i.key()) {
                    case "preference.language" -> t.t("answers in " + i.value(), "用" + i.value() + "回答");
                    case "preference.contact" -> t.t("contact by " + i.value(), "通过" + i.value() + "联系");
                    default -> i.key() + " = " + i.value();
                });
            } else if (i.layer().equals("persistent")) {
                facts.add(i.key() + " = " + i.value());
            } else if (i.layer().endsWith("-state")) {
                request.add(i.key() + " = " + i.value());
            }
        }
        List<String> parts = new ArrayList<>();
        if (!preferences.isEmpty()) {
            parts.add(t.t("your preferences: ", "您的偏好：") + String.join(t.t(", ", "，"), preferences));
        }
        if (!facts.isEmpty()) {
            parts.add(t.t("kept across sessions: ", "跨会话保存的事实：") + String.join(t.t(", ", "，"), facts));
        }
        if (!request.isEmpty()) {
            parts.add(t.activeTask().map(a -> t.t("your current request (" + a + "): ", "当前请求（" + a + "）："))
                    .orElse(t.t("this conversation: ", "本次对话：")) + String.join(t.t(", ", "，"), request));
        }
        if (!t.openTasks().isEmpty()) {
            parts.add(t.t("open requests: ", "未完成的请求：") + t.openTasks().stream().map(OpenTask::task)
                    .collect(Collectors.joining(t.t(", ", "，"))));
        }
        if (parts.isEmpty()) {
            return text(t.t("I don't remember anything about you yet. Tell me a preference, e.g. \"always answer in French\","
                    + " and I will keep it.", "我还没有记住关于您的任何信息。告诉我一个偏好，例如“以后请用中文回答”，我就会记住。"));
        }
        return text(t.t("Here is what I remember about you: " + String.join("; ", parts) + ". /memory lists every item with its"
                        + " version, /history KEY its earlier versions.",
                "我记得的关于您的信息：" + String.join("；", parts) + "。/memory 列出每一项及其版本，/history KEY 显示旧版本。"));
    }

    private ChatResponse status(Turn t) {
        Map<String, String> state = new LinkedHashMap<>();
        t.memory().forEach((k, v) -> state.put(k, v.value()));
        return status(t, state);
    }

    private ChatResponse status(Turn t, Map<String, String> state) {
        java.util.function.Function<String, Optional<String>> mem = k -> Optional.ofNullable(state.get(k));
        java.util.Collection<String> parts = new java.util.LinkedHashSet<>();
        mem.apply("order.current").ifPresent(o -> {
            parts.add(t.t("order " + o, "订单 " + o));
            mem.apply("order:" + o + ".item").ifPresent(i -> parts.add(i));
            mem.apply("order:" + o + ".color").ifPresent(c -> parts.add(t.t("original colour " + c, "原颜色" + color(c, true))));
            mem.apply("order:" + o + ".purchased").ifPresent(d -> parts.add(t.t("bought " + d, "购买于 " + d)));
        });
        if (mem.apply("order.current").isEmpty()) {
            // a new session: what persistent memory holds about an exchange
            t.exchangeOrigin().ifPresent(o -> {
                parts.add(t.t("the exchange of order " + o, "订单 " + o + " 的换货"));
                mem.apply("order:" + o + ".exchangeColor").ifPresent(c -> parts.add(t.t("replacement colour " + color(c, false),
                        "替换颜色" + color(c, true))));
                mem.apply("order:" + o + ".exchangeOrder").ifPresent(x -> parts.add(t.t("exchange order " + x, "换货订单 " + x)));
                mem.apply("order:" + o + ".exchangeAddress").ifPresent(x -> parts.add(t.t("shipping to " + x, "寄往 " + x)));
            });
        }
        mem.apply("exchange.choice").ifPresent(c -> parts.add(t.t("choice: " + (c.contains("换") ? "exchange" : c), "选择：换货")));
        mem.apply("exchange.color").ifPresent(c -> parts.add(t.t("replacement colour " + c, "替换颜色" + color(c, true))));
        mem.apply("trip.destination").ifPresent(d -> parts.add(t.t("trip to " + d, "行程目的地" + d)));
        if (parts.isEmpty()) {
            return text(t.t("I have nothing open for you at the moment.", "目前没有进行中的事项。"));
        }
        return text(t.t("Back to your request: " + String.join(", ", parts) + ".",
                "回到您的请求：" + String.join("，", parts) + "。"));
    }

    // ------------------------------------------------------------------ parsing helpers

    static boolean has(String low, String... words) {
        for (String w : words) {
            if (low.contains(w)) {
                return true;
            }
        }
        return false;
    }

    private static Optional<String> product(String low) {
        if (has(low, "earbud", "earphone", "headphone", "耳机")) {
            return Optional.of("earbuds");
        }
        if (has(low, "charger", "充电器")) {
            return Optional.of("charger");
        }
        if (has(low, "watch", "手表")) {
            return Optional.of("watch");
        }
        return Optional.empty();
    }

    /** The problem with the item, in the user's words (a value the tools accept only if the user said it). */
    private static Optional<String> issue(String said) {
        String low = said.toLowerCase(Locale.ROOT);
        if (cjk(said)) {
            // the clause that names the problem, as written
            for (String clause : said.split("[，。！？；,.!?;]")) {
                if (has(clause, "右耳", "左耳", "没声音", "坏")) {
                    return Optional.of(clause.strip());
                }
            }
            return Optional.empty();
        }
        if (has(low, "right ear")) {
            return Optional.of("right ear is silent").filter(i -> low.contains("silent"))
                    .or(() -> Optional.of("right ear"));
        }
        if (has(low, "left ear")) {
            return Optional.of("left ear is silent").filter(i -> low.contains("silent"))
                    .or(() -> Optional.of("left ear"));
        }
        if (has(low, "silent")) {
            return Optional.of("silent");
        }
        if (has(low, "broken")) {
            return Optional.of("broken");
        }
        return Optional.empty();
    }

    private static final String[][] COLORS = {{"white", "白"}, {"black", "黑"}, {"silver", "银"}, {"blue", "蓝"}, {"red", "红"}};

    private static Optional<String> color(String low) {
        for (String[] c : COLORS) {
            if (low.contains(c[0]) || low.contains(c[1] + "色")) {
                return Optional.of(c[0]);
            }
        }
        return Optional.empty();
    }

    /** The colour as the user wrote it (e.g. 白色 or white). */
    private static String colorWord(String said, String en) {
        for (String[] c : COLORS) {
            if (c[0].equals(en) && said.contains(c[1] + "色")) {
                return c[1] + "色";
            }
        }
        return en;
    }

    private static String color(String en, boolean zh) {
        if (color(en.toLowerCase(Locale.ROOT)).isPresent() && !en.matches("[a-z]+")) {
            en = color(en).get();
        }
        for (String[] c : COLORS) {
            if (c[0].equals(en)) {
                return zh ? c[1] + "色" : en;
            }
        }
        return en;
    }

    private static Optional<String> destination(String said) {
        Matcher m = Pattern.compile("(?i)(?:trip|travel(?:l?ing)?|going)\\s+(?:is\\s+)?to\\s+([A-Z][\\p{L}-]+)").matcher(said);
        if (m.find()) {
            return Optional.of(m.group(1));
        }
        Matcher c = Pattern.compile("去([\\p{IsHan}]{2,4}?)(?:出差|旅行|玩|，|。|,|$)").matcher(said);
        return c.find() ? Optional.of(c.group(1)) : Optional.empty();
    }

    /** The words of {@code said} that name a date, as the user wrote them. */
    static Optional<String> dateWords(String said) {
        Matcher m = Pattern.compile("\\d{4}-\\d{2}-\\d{2}|\\d{1,2}月\\d{1,2}[日号]|(?i)\\d{1,2}(?:st|nd|rd|th)?\\s+(?:"
                + MONTHS + ")|(?:" + MONTHS + ")\\s+\\d{1,2}").matcher(said);
        return m.find() ? Optional.of(m.group()) : Optional.empty();
    }

    private static final String MONTHS = java.util.Arrays.stream(Month.values())
            .map(mo -> mo.getDisplayName(TextStyle.FULL, Locale.ENGLISH)).collect(Collectors.joining("|"));

    static Optional<LocalDate> date(String said, LocalDate today) {
        Matcher iso = Pattern.compile("(\\d{4})-(\\d{2})-(\\d{2})").matcher(said);
        if (iso.find()) {
            return Optional.of(LocalDate.parse(iso.group()));
        }
        Matcher cn = Pattern.compile("(\\d{1,2})月(\\d{1,2})[日号]").matcher(said);
        if (cn.find()) {
            return Optional.of(nextDate(today, Integer.parseInt(cn.group(1)), Integer.parseInt(cn.group(2))));
        }
        for (Month month : Month.values()) {
            String name = month.getDisplayName(TextStyle.FULL, Locale.ENGLISH);
            Matcher a = Pattern.compile("(?i)(\\d{1,2})(?:st|nd|rd|th)?\\s+" + name + "|" + name + "\\s+(\\d{1,2})").matcher(said);
            if (a.find()) {
                int day = Integer.parseInt(a.group(1) != null ? a.group(1) : a.group(2));
                return Optional.of(nextDate(today, month.getValue(), day));
            }
        }
        return Optional.empty();
    }

    private static LocalDate nextDate(LocalDate today, int month, int day) {
        LocalDate d = LocalDate.of(today.getYear(), month, day);
        return d.isBefore(today) ? d.plusYears(1) : d;
    }

    private static Optional<String> newAddress(String said) {
        Matcher m = Pattern.compile("(?i)(?:address to|(?:ship|deliver|send) (?:it|them|the replacement|the exchange) to)"
                + "\\s*:?\\s*(.+?)[.!]?$").matcher(said.trim());
        if (m.find()) {
            return Optional.of(m.group(1).trim());
        }
        Matcher c = Pattern.compile("(?:改成|改为|改到|寄到)\\s*[:：]?\\s*(.+?)[。！!.]?$").matcher(said.trim());
        return c.find() ? Optional.of(c.group(1).trim()) : Optional.empty();
    }

    // ------------------------------------------------------------------ responses

    private final AtomicInteger ids = new AtomicInteger();

    private ToolExecutionRequest call(Turn t, String tool, Object... args) {
        if (!t.tools().contains(tool)) {
            throw new IllegalStateException("the scripted model needs the tool " + tool + ", which the AiService does not offer");
        }
        ObjectNode node = JSON.createObjectNode();
        for (int i = 0; i < args.length; i += 2) {
            Object v = args[i + 1];
            if (v instanceof Boolean b) {
                node.put((String) args[i], b);
            } else {
                node.put((String) args[i], String.valueOf(v));
            }
        }
        return ToolExecutionRequest.builder().id("call-" + ids.incrementAndGet()).name(tool).arguments(node.toString()).build();
    }

    private static ChatResponse calls(List<ToolExecutionRequest> requests) {
        return ChatResponse.builder().aiMessage(AiMessage.from(requests)).modelName(NAME)
                .finishReason(FinishReason.TOOL_EXECUTION).build();
    }

    private static ChatResponse text(String answer) {
        return ChatResponse.builder().aiMessage(AiMessage.from(answer)).modelName(NAME).finishReason(FinishReason.STOP).build();
    }
}
