package imageclip

import (
	"runtime"
	"strings"
	"testing"
)

// Without a display the real clipboard reports that it cannot be used.
func TestSystemClipboardWithoutDisplay(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("X11 clipboard only")
	}
	t.Setenv("DISPLAY", "")
	c := &Clipboard{}
	for range 2 {
		if err := c.WritePNG([]byte("x")); err == nil || !strings.Contains(err.Error(), "clipboard cannot be used") {
			t.Errorf("WritePNG without a display: %v", err)
		}
	}
}
