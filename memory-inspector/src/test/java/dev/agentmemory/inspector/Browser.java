package dev.agentmemory.inspector;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

/**
 * A real headless Chromium for the page tests: Debian's {@code chromium} and {@code chromium-driver},
 * never a browser or driver downloaded by Selenium. Without them the tests are skipped with a
 * message, unless {@code AGENTMEMORY_REQUIRE_BROWSER=1} (CI sets it), which makes their absence a
 * failure.
 */
final class Browser implements AutoCloseable {

    /** Debian's browser; {@code -Dinspector.chromium=...} points elsewhere. */
    static final Path CHROMIUM = Path.of(System.getProperty("inspector.chromium", "/usr/bin/chromium"));
    /** Debian's driver; {@code -Dinspector.chromedriver=...} points elsewhere. */
    static final Path CHROMEDRIVER = Path.of(System.getProperty("inspector.chromedriver", "/usr/bin/chromedriver"));
    /** How long a page may take to show what a test waits for before the test fails. */
    private static final long PATIENCE_MS = 15_000;

    final ChromeDriver driver;

    private Browser(ChromeDriver driver) {
        this.driver = driver;
    }

    static Browser open() {
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
            String missing = "the browser tests need " + CHROMIUM + " and " + CHROMEDRIVER
                    + " (apt-get install -y chromium chromium-driver)";
            if ("1".equals(System.getenv("AGENTMEMORY_REQUIRE_BROWSER"))) {
                Assertions.fail(missing + "; AGENTMEMORY_REQUIRE_BROWSER=1 requires them");
            }
            // surefire does not print why a class was aborted: say it in the build's output
            System.err.println("[memory-inspector] browser tests SKIPPED: " + missing);
            Assumptions.abort(missing + "; skipped");
        }
        System.setProperty("webdriver.chrome.driver", CHROMEDRIVER.toString());
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,860", "--no-first-run", "--disable-extensions", "--disable-background-networking");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
        return new Browser(new ChromeDriver(service, options));
    }

    /** Opens a route of the page ({@code #/memory?user=alice}) and waits until it has been drawn. */
    void go(String base, String route) {
        String before = String.valueOf(driver.executeScript("return document.body.getAttribute('data-ready')"));
        driver.get(base + route);
        waitUntil("page " + route + " drawn", () -> {
            Object now = driver.executeScript("return document.body.getAttribute('data-ready')");
            return now != null && !now.toString().equals(before);
        });
    }

    WebElement find(String css) {
        return waitFor(css, e -> true);
    }

    /** The first element matching {@code css} that satisfies {@code ok}, waiting for it. */
    WebElement waitFor(String css, java.util.function.Predicate<WebElement> ok) {
        WebElement[] found = new WebElement[1];
        waitUntil(css, () -> {
            for (WebElement e : driver.findElements(By.cssSelector(css))) {
                try {
                    if (ok.test(e)) {
                        found[0] = e;
                        return true;
                    }
                } catch (org.openqa.selenium.StaleElementReferenceException stale) {
                    // redrawn meanwhile: look again
                }
            }
            return false;
        });
        return found[0];
    }

    List<WebElement> all(String css) {
        return driver.findElements(By.cssSelector(css));
    }

    void waitUntil(String what, Supplier<Boolean> condition) {
        long deadline = System.nanoTime() + PATIENCE_MS * 1_000_000;
        while (true) {
            try {
                if (condition.get()) {
                    return;
                }
            } catch (org.openqa.selenium.StaleElementReferenceException ignored) {
                // redrawn meanwhile: look again
            }
            if (System.nanoTime() > deadline) {
                Assertions.fail("waited " + PATIENCE_MS + " ms for " + what + "; page shows: "
                        + driver.findElement(By.tagName("main")).getText());
            }
            try {
                Thread.sleep(25);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /**
     * Saves a screenshot of the page for the README when {@code -Dinspector.screenshots=<dir>} is
     * given (docs/inspector); otherwise nothing is written.
     */
    void screenshot(String name) {
        String dir = System.getProperty("inspector.screenshots");
        if (dir == null || dir.isEmpty()) {
            return;
        }
        try {
            Path out = Path.of(dir).resolve(name + ".png");
            Files.createDirectories(out.getParent());
            Files.write(out, driver.getScreenshotAs(OutputType.BYTES));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        driver.quit();
    }
}
