package dev.agentmemory.langchain4j.recall;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.StopFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.cjk.CJKBigramFilter;
import org.apache.lucene.analysis.cjk.CJKWidthFilter;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.en.EnglishPossessiveFilter;
import org.apache.lucene.analysis.en.PorterStemFilter;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;

/**
 * Mixed English / CJK analysis: Unicode word segmentation, full-width folding, lower case,
 * overlapping bigrams plus unigrams for Han/Hiragana/Katakana/Hangul runs (so a Chinese query
 * of one or two characters still matches), English possessives, stop words and Porter stemming
 * for Latin words. The same chain is used at index and query time.
 */
final class RecallAnalyzer extends Analyzer {

    @Override
    protected TokenStreamComponents createComponents(String fieldName) {
        StandardTokenizer source = new StandardTokenizer();
        TokenStream stream = new CJKWidthFilter(source);
        stream = new LowerCaseFilter(stream);
        stream = new CJKBigramFilter(stream, CJKBigramFilter.HAN | CJKBigramFilter.HIRAGANA
                | CJKBigramFilter.KATAKANA | CJKBigramFilter.HANGUL, true);
        stream = new EnglishPossessiveFilter(stream);
        stream = new StopFilter(stream, EnglishAnalyzer.ENGLISH_STOP_WORDS_SET);
        stream = new PorterStemFilter(stream);
        return new TokenStreamComponents(source, stream);
    }

    @Override
    protected TokenStream normalize(String fieldName, TokenStream in) {
        return new LowerCaseFilter(new CJKWidthFilter(in));
    }

    /** The distinct terms of a text, in order of first appearance. */
    Set<String> terms(String field, String text) {
        return new LinkedHashSet<>(termList(field, text));
    }

    /** The terms of a text in order, repeats included. */
    List<String> termList(String field, String text) {
        List<String> out = new ArrayList<>();
        try (TokenStream ts = tokenStream(field, text)) {
            CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
            ts.reset();
            while (ts.incrementToken()) {
                out.add(term.toString());
            }
            ts.end();
        } catch (IOException e) {
            throw new UncheckedIOException("analysing text failed", e);
        }
        return out;
    }
}
