package app

import "kleinbild/download"

// StartDownload fetches variant v (one of download.Choices) into dir off the UI goroutine, resuming what an earlier
// run left there; once complete and checked, the folder becomes the model. An empty token
// uses download.DefaultToken.
func (u *UI) StartDownload(v download.Variant, dir, token string) {
	u.model.StartDownload(v, dir, token)
}

// PauseDownload stops the running download; starting it again resumes.
func (u *UI) PauseDownload() { u.model.PauseDownload() }

// ShowModelDialog opens the model settings: choose a model folder or file, replace parts,
// see what it is and whether it is complete, and the memory it needs against what there is.
func (u *UI) ShowModelDialog() { u.model.ShowDialog() }

// SetModelDir switches to the model dir (a diffusers folder, a ComfyUI models folder or a
// transformer file) after checking it; remember keeps it for the next start. A problem is
// shown in the window and returned.
func (u *UI) SetModelDir(dir string, remember bool) error {
	return u.model.SetDir(dir, remember)
}
