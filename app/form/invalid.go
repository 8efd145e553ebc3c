package form

import (
	"errors"
	"fmt"
	"kleinbild/app/jobs"
	"strings"

	"fyne.io/fyne/v2/widget"
)

// ExplainInvalid turns jobs.ErrInvalidForm, which leaves the reasons to the fields, into an error
// that names them, for gui --generate, which has no one looking at the fields: "some
// settings are invalid" did not say that the prompt was empty (issue 37 item 12). Other
// errors are returned as they are (UI goroutine).
func (c *Controls) ExplainInvalid(err error) error {
	if !errors.Is(err, jobs.ErrInvalidForm) {
		return err
	}
	var why []string
	if strings.TrimSpace(c.Prompt.Text) == "" {
		why = append(why, "the prompt is empty: give one with --prompt")
	}
	for _, l := range []*widget.Label{c.PromptErr, c.negativeErr, c.SizeErr, c.stepsErr, c.seedErr} {
		if l != nil && l.Visible() && l.Text != "" && (l != c.PromptErr || len(why) == 0) {
			why = append(why, strings.TrimSuffix(l.Text, "."))
		}
	}
	if len(why) == 0 {
		return err
	}
	return fmt.Errorf("%s", strings.Join(why, "; "))
}
