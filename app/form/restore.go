package form

import (
	"fmt"
	"kleinbild/engine"
	"kleinbild/engine/imageio"
	"path/filepath"
	"slices"
	"strings"

	"fyne.io/fyne/v2/dialog"
)

// RestoreSettings fills the controls from an image's metadata: prompt, size, steps,
// guidance, schedule, noise, the seed (locked, so the next run reproduces the image), the
// adapters and the reference images that still exist.
func (c *Controls) RestoreSettings(m imageio.Metadata) {
	c.RestoreRequest(engine.MetadataRequest(m), func() { c.RestoreAdapters(m.Adapters) })
}

// RestoreRequest fills the controls from req as RestoreSettings does (an image's settings,
// or a queued job opened back into the form); adapters brings back its adapters.
func (c *Controls) RestoreRequest(req engine.Request, adapters func()) {
	// A prompt beyond the limit (the metadata reader takes up to 16 MB) stays out of the
	// field: no generation could use it, and a field that large is slow to lay out.
	promptErr := engine.ValidatePrompt(req.Prompt)
	c.apply(req.Settings)
	c.ReuseSeed(req.Seed)
	adapters()
	var notes []string
	if promptErr != nil {
		notes = append(notes, fmt.Sprintf("not the prompt: it is %d KB long, at most %d KB are allowed", len(req.Prompt)>>10, engine.MaxPromptBytes>>10))
	}
	if note := inpaintNotRestored(req); note != "" {
		notes = append(notes, note)
	}
	want := req.References
	have := c.Refs.RefPaths()
	if len(have) == 0 || slices.Equal(have, want) {
		c.restoreRefs(want, true, notes)
		return
	}
	// The user's own references are not replaced without asking.
	msg := fmt.Sprintf("The image was made with %d reference image(s). Replace your %d reference image(s) with them?", len(want), len(have))
	if len(want) == 0 {
		msg = fmt.Sprintf("The image was made without reference images. Remove your %d reference image(s)?", len(have))
	}
	d := dialog.NewConfirm("Replace the references?", msg, func(replace bool) {
		if replace {
			c.restoreRefs(want, true, notes)
		} else {
			c.restoreRefs(nil, false, append(notes, "not the reference images (yours are kept)"))
		}
	}, c.sh.Win)
	d.SetConfirmText("Replace")
	d.SetDismissText("Keep mine")
	d.Show()
}

// restoreRefs ends a restore: with replace the references become paths (those that still
// exist); notes are what was not restored, for the message.
func (c *Controls) restoreRefs(paths []string, replace bool, notes []string) {
	if replace {
		if missing := c.Refs.ReplaceRefs(paths); len(missing) > 0 {
			notes = append(notes, fmt.Sprintf("%d reference image(s) that no longer exist: %s", len(missing), strings.Join(missing, ", ")))
		}
	}
	if len(notes) > 0 {
		c.sh.ShowNotice("Settings restored, but " + strings.Join(notes, "; ") + ".")
	} else {
		c.sh.SetStatus("Settings restored.")
	}
}

// inpaintNotRestored is what restoring req into the form leaves out when req repainted a
// picture ("" when it did not): the form holds no picture, mask or strength (issue 36
// item 24: restoring an Inpaint result's settings silently brought back only part of
// them). The viewer's Reuse settings restores them in the Inpaint window.
func inpaintNotRestored(req engine.Request) string {
	if req.Image == "" {
		return ""
	}
	what := "the inpainting (the repainted picture, its mask and strength"
	if !engine.PaddingOf(req.Outpaint).IsZero() {
		what = "the outpainting (the extended picture, its extension and strength"
	}
	return fmt.Sprintf("not %s %.2f), which the form does not hold: open %s and use Reuse settings in the viewer to repaint it in Inpaint",
		what, req.Strength, filepath.Base(req.Image))
}
