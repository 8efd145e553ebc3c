package saveas

import (
	"strings"
	"testing"
)

// TestFormatOf: .png and .jpg (any case, .jpeg too) are written; WebP and others are
// refused with the reason.
func TestFormatOf(t *testing.T) {
	for name, want := range map[string]string{"a.png": ".png", "a.PNG": ".png", "a.jpg": ".jpg", "a.JPEG": ".jpg", "a.webp": "WebP", "a.gif": "not .gif", "a": "not "} {
		f, err := FormatOf(name)
		got := f.Ext
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, want) {
			t.Errorf("FormatOf(%q) = %q, want %q", name, got, want)
		}
	}
}
