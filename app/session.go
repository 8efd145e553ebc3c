package app

import (
	"fmt"
	"slices"

	"kleinbild/app/settings"
)

// sessionState says whether the remembered references are back in the form: until they
// are, an empty reference list is the form still being built, not the user's choice.
type sessionState struct {
	refsRestored bool
}

// restoreSession puts the remembered references back (those that can still be used as
// references; it says how many could not), when the window opens.
func (u *UI) restoreSession(s settings.Settings) {
	defer func() { u.session.refsRestored = true }()
	if len(s.References) == 0 {
		return
	}
	var gone int
	for _, p := range s.References {
		if checkReferenceFile(p) != nil || u.refs.appendReference(p) != nil {
			gone++
		}
	}
	u.refs.refresh()
	if gone > 0 {
		u.setStatus(fmt.Sprintf("%d remembered reference image(s) could not be used again and were left out.", gone))
	}
}

// rememberRefs keeps the form's references for the next start (after every change of them).
func (u *UI) rememberRefs() {
	if !u.session.refsRestored || slices.Equal(u.settings.References, u.refs.paths) {
		return
	}
	u.settings.References = slices.Clone(u.refs.paths)
	u.remember(u.settings)
}

// rememberViewed keeps the gallery image shown in the viewer for the next start.
func (sh *shell) rememberViewed(file string) {
	if sh.settings.LastViewed == file {
		return
	}
	sh.settings.LastViewed = file
	sh.remember(sh.settings)
}

// showLastViewed shows the image viewed last time once the gallery has loaded, unless the
// viewer already shows something (a run, or an image picked meanwhile).
func (u *UI) showLastViewed() {
	f := u.settings.LastViewed
	if f == "" || u.view.shownOK || u.view.followRun || u.run.cur != nil || u.gallery == nil || u.gallery.IndexOf(f) < 0 {
		return
	}
	u.gal.selectEntry(f, nil)
}
