package dev.agentmemory.langchain4j.recall;

/** Vector arithmetic of the recall index: unit vectors, cosine of unit vectors, Lucene's dot-product score. */
final class Vectors {

    private Vectors() {
    }

    /**
     * {@code v} scaled to unit length.
     *
     * @throws IllegalArgumentException when it does not have {@code dimensions} dimensions or is zero or not finite
     */
    static float[] unit(float[] v, int dimensions, String what) {
        if (v.length != dimensions) {
            throw new IllegalArgumentException(
                    what + " has " + v.length + " dimensions, the index has " + dimensions);
        }
        double norm = 0;
        for (float x : v) {
            norm += (double) x * x;
        }
        if (norm == 0 || !Double.isFinite(norm)) {
            throw new IllegalArgumentException(what + " must be a non-zero finite vector, its norm is " + norm);
        }
        double inv = 1 / Math.sqrt(norm);
        float[] u = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            u[i] = (float) (v[i] * inv);
        }
        return u;
    }

    /** The cosine of two unit vectors (their dot product). */
    static double cosine(float[] a, float[] b) {
        double dot = 0;
        for (int i = 0; i < a.length; i++) {
            dot += (double) a[i] * b[i];
        }
        return dot;
    }

    /** Lucene scores DOT_PRODUCT on unit vectors as (1 + dot) / 2. */
    static double dotScoreToCosine(float score) {
        return 2.0 * score - 1.0;
    }
}
