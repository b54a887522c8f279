package dev.agentmemory.langchain4j.recall;

/** Vector arithmetic of the recall index: unit vectors and the cosine of unit vectors. */
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
        // four independent sums: one sum waits for its previous addition at every step
        double s0 = 0;
        double s1 = 0;
        double s2 = 0;
        double s3 = 0;
        int i = 0;
        for (; i + 3 < a.length; i += 4) {
            s0 += (double) a[i] * b[i];
            s1 += (double) a[i + 1] * b[i + 1];
            s2 += (double) a[i + 2] * b[i + 2];
            s3 += (double) a[i + 3] * b[i + 3];
        }
        for (; i < a.length; i++) {
            s0 += (double) a[i] * b[i];
        }
        return (s0 + s1) + (s2 + s3);
    }
}
