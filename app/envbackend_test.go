package app

import (
	"strings"
	"testing"
	"time"

	"kleinbild/gpu/backends"
)

// TestBadEnvBackendNotice: a $KLEINBILD_BACKEND that names no device (issue 23 item 11) is
// not ignored without a word in the window either: once the devices are probed the banner
// names the value and the device used instead. A device of the list (an ID or a backend
// name, any case) or "default" gives no notice.
func TestBadEnvBackendNotice(t *testing.T) {
	for _, tc := range []struct {
		env  string
		warn bool
	}{
		{"garbage", true},
		{"webgpu:99", true},
		{" webgpu:7 ", true},
		{"WEBGPU:0", false},
		{"webgpu", false},
		{"openblas", false},
		{"default", false},
		{"", false},
	} {
		t.Run(tc.env, func(t *testing.T) {
			t.Setenv(backends.EnvBackend, tc.env)
			h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
			h.waitFor("the device probe", 10*time.Second, func() bool { return h.ui.model.Dev.Probed })
			h.settle()
			b := h.ui.ErrorText()
			if !tc.warn {
				if strings.Contains(b, backends.EnvBackend) {
					t.Errorf("banner %q", b)
				}
				return
			}
			want := `$KLEINBILD_BACKEND="` + strings.TrimSpace(tc.env) + `"`
			if !strings.Contains(b, want) || !strings.Contains(b, "using openblas — Test CPU") {
				t.Errorf("banner %q, want %s and the device used instead", b, want)
			}
		})
	}
}
