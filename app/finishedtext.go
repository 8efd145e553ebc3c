package app

import (
	"context"
	"errors"
	"fmt"
)

// finishedText is the notification of a run that ended: what it made, or why it failed;
// "" for a run the user cancelled.
func finishedText(out runOutcome, count int) string {
	n := len(out.entries)
	switch {
	case errors.Is(out.err, context.Canceled):
		return ""
	case out.err != nil && !out.saved:
		return "Generation failed: " + out.err.Error()
	case n == 1:
		return "Your image is ready: " + out.entry.File
	}
	return fmt.Sprintf("%d of %d images are ready.", n, count)
}
