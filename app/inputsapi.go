package app

import (
	"fmt"

	"fyne.io/fyne/v2"
)

// AddReference adds an image file as a reference and shows it.
func (u *UI) AddReference(path string) { u.refs.Add(path) }

// HandleDrop takes files dropped onto the window. Adapter (safetensors) files join the
// Adapters section; images become references; a single PNG made by Kleinbild first asks
// whether to restore its settings or use it as a reference. The files are read on a
// background goroutine (a slow disk or a large file never stalls the window); the result
// is applied on the UI goroutine (Shell.Post).
func (u *UI) HandleDrop(uris []fyne.URI) {
	u.handleDrop(uris)
}

// handleDrop is HandleDrop; the channel is closed once the drop has been applied.
func (u *UI) handleDrop(uris []fyne.URI) <-chan struct{} {
	var paths []string
	var errs []error
	for _, uri := range uris {
		if uri.Scheme() != "file" {
			errs = append(errs, fmt.Errorf("cannot use %s: it is not a local file", uri.String()))
			continue
		}
		paths = append(paths, uri.Path())
	}
	// Adapter files (told by their content) go to the Adapters section.
	return u.adapters.DropAdapters(paths, errs, u.refs.DropImages)
}

// routeDrop hands dropped files to the part of the window they are for: adapter files to
// the Adapters section, model folders and files to the model settings, and the rest to
// the references (inputs.Adapters.RouteDrop). The channel is closed once the drop has
// been applied.
func (u *UI) routeDrop(uris []fyne.URI) <-chan struct{} {
	return u.adapters.RouteDrop(uris, u.model.TakeDrop, u.handleDrop)
}
