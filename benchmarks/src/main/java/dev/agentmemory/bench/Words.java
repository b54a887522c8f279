package dev.agentmemory.bench;

import java.util.Random;

/** Seeded random words and sentences for synthetic benchmark data. */
final class Words {

    private Words() {
    }

    /** {@code n} random lower-case words of 3 to 9 letters. */
    static String[] vocabulary(int n, Random random) {
        String letters = "abcdefghijklmnopqrstuvwxyz";
        String[] words = new String[n];
        for (int i = 0; i < n; i++) {
            StringBuilder sb = new StringBuilder();
            int len = 3 + random.nextInt(7);
            for (int j = 0; j < len; j++) {
                sb.append(letters.charAt(random.nextInt(letters.length())));
            }
            words[i] = sb.toString();
        }
        return words;
    }

    /** {@code n} words with a skewed choice (frequent words come up often), as in natural text. */
    static String sentence(String[] words, Random random, int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                sb.append(' ');
            }
            int idx = (int) Math.min(words.length - 1, Math.abs(random.nextGaussian()) * words.length / 3);
            sb.append(words[idx]);
        }
        return sb.toString();
    }
}
