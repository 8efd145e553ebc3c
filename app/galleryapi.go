package app

import "kleinbild/app/chooser"

// saveAs is the viewer's Save as…: Kleinbild's chooser saving a copy of the image file
// src, named name, in the folder start returns (a typed path works).
func (u *UI) saveAs(title, src, name string, start func() string, saved func(path string)) {
	chooser.OpenSave(u.Shell, title, src, name, start, saved)
}
