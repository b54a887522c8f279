package dev.agentmemory.langchain4j.internal;

import java.util.Locale;

/**
 * The one way this module turns an enum constant into text, whatever the default locale: lower
 * case with {@link Locale#ROOT}, words joined by {@code -} in labels ({@code TASK_FACT} becomes
 * {@code task-fact}) and by spaces in prose ({@code task fact}).
 */
public final class EnumText {

    private EnumText() {
    }

    /** The label of {@code constant}: {@code TASK_FACT} becomes {@code task-fact}, {@code TRUSTED} {@code trusted}. */
    public static String label(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** {@code constant} as words in a sentence: {@code TASK_FACT} becomes {@code task fact}. */
    public static String words(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }

    /**
     * The constant of {@code type} whose {@link #label} is {@code label}.
     *
     * @throws IllegalArgumentException naming the label and the type when there is none
     */
    public static <E extends Enum<E>> E parse(Class<E> type, String label) {
        for (E constant : type.getEnumConstants()) {
            if (label(constant).equals(label)) {
                return constant;
            }
        }
        throw new IllegalArgumentException("unknown " + type.getSimpleName().toLowerCase(Locale.ROOT) + " label: " + label);
    }
}
