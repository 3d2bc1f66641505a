package cli

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// headlessBrowser starts headless Chromium for a test, its window
// layoutWidth × layoutHeight and its profile in the test's temporary
// directory, and returns a context of one browser tab. The browser stops
// when the test ends, or when timeout has passed.
func headlessBrowser(t *testing.T, timeout time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	allocCtx, allocCancel := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.UserDataDir(filepath.Join(t.TempDir(), "chromium-profile")),
		chromedp.WindowSize(layoutWidth, layoutHeight),
	)
	bctx, bcancel := chromedp.NewContext(allocCtx)
	t.Cleanup(func() {
		bcancel()
		allocCancel()
		cancel()
	})
	return bctx
}
