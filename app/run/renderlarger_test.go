package run

import (
	"testing"

	"kleinbild/engine"
)

func TestLargerSize(t *testing.T) {
	cases := []struct {
		w, h, nw, nh int
		ok           bool
	}{
		{512, 512, 720, 720, true},
		{256, 192, 368, 272, true},
		{768, 1024, 1088, 1456, true},
		{1024, 576, 1456, 816, true},
		{1440, 1440, 1792, 1792, true},
		{1024, 1792, 1024, 1792, false}, // the long side is at the limit already
		{1792, 1792, 1792, 1792, false},
		{0, 512, 0, 0, false},
	}
	for _, c := range cases {
		nw, nh, ok := largerSize(c.w, c.h)
		if nw != c.nw || nh != c.nh || ok != c.ok {
			t.Errorf("largerSize(%d, %d) = %d, %d, %v; want %d, %d, %v", c.w, c.h, nw, nh, ok, c.nw, c.nh, c.ok)
		}
		if ok && (nw%16 != 0 || nh%16 != 0 || nw > engine.MaxSidePx || nh > engine.MaxSidePx) {
			t.Errorf("largerSize(%d, %d) = %d × %d is not a valid size", c.w, c.h, nw, nh)
		}
	}
}
