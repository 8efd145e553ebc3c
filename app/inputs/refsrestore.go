package inputs

import (
	"fmt"
	"slices"

	"kleinbild/app/imagefile"
)

// Restore puts the remembered references paths back (those that can still be used as
// references; it says how many could not), when the window opens.
func (r *Refs) Restore(paths []string) {
	defer func() { r.restored = true }()
	if len(paths) == 0 {
		return
	}
	var gone int
	for _, p := range paths {
		if imagefile.CheckReference(p) != nil || r.appendReference(p) != nil {
			gone++
		}
	}
	r.refresh()
	if gone > 0 {
		r.sh.SetStatus(fmt.Sprintf("%d remembered reference image(s) could not be used again and were left out.", gone))
	}
}

// remember keeps the form's references for the next start (after every change of them).
func (r *Refs) remember() {
	if !r.restored || slices.Equal(r.sh.Settings.References, r.paths) {
		return
	}
	r.sh.Settings.References = slices.Clone(r.paths)
	r.sh.Remember(r.sh.Settings)
}
