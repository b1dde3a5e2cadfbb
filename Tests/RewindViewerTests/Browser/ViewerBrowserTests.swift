import Testing

/// The viewer's pages in headless Chromium, one browser at a time (each test starts its own
/// chromedriver and browser; several at once starve a two-core machine). Skipped, with the
/// reason, where chromium or chromedriver is missing.
@Suite(
    .serialized,
    .enabled(if: WebDriver.executables != nil, "needs chromium and chromedriver (make test installs them)"), .hangGuard)
enum ViewerBrowserTests {}
