package run

import (
	"context"
	"errors"
	"fmt"
)

// finishedText is the notification of a run that ended: what it made, or why it failed;
// "" for a run the user cancelled.
func finishedText(out Outcome, count int) string {
	n := len(out.Entries)
	switch {
	case errors.Is(out.Err, context.Canceled):
		return ""
	case out.Err != nil && !out.Saved:
		return "Generation failed: " + out.Err.Error()
	case n == 1:
		return "Your image is ready: " + out.Entry.File
	}
	return fmt.Sprintf("%d of %d images are ready.", n, count)
}
