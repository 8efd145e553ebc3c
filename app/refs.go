package app

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/gallery"
	"kleinbild/app/imagefile"
	"kleinbild/app/jobs"
	"kleinbild/app/shell"
	"kleinbild/app/thumbcache"
	"kleinbild/app/userdirs"
	"kleinbild/app/widgets"
	"kleinbild/engine"
	"kleinbild/engine/imageio"
)

// refCell is the side of a reference thumbnail in the side panel.
const refCell = 88

// refsSection is the References part of the side panel: the Add… button, a thumbnail
// with a remove button for each of paths, and a hint while there are none.
type refsSection struct {
	sh    *shell.Shell
	paths []string // reference image paths
	// restored is set once the remembered references are back (restore): until then an
	// empty list is the form still being built, not the user's choice.
	restored bool
	// estimateSoon asks the fit line for a new estimate; showAdded scrolls the form to
	// the references, at its end (given in UI.wire).
	estimateSoon, showAdded func()

	add  *widget.Button
	grid *fyne.Container
	hint *widget.RichText
	box  *fyne.Container
}

// build creates the References section of the side panel.
func (r *refsSection) build() fyne.CanvasObject {
	r.add = widget.NewButtonWithIcon("Add…", theme.ContentAddIcon(), func() { r.showAdd() })
	r.add.Importance = widget.LowImportance
	r.grid = container.NewGridWrap(fyne.NewSquareSize(refCell))
	r.hint = shell.Hint("Drop images onto the window, or press Add… to pick several at once, to edit them or borrow their look (up to 8). Dropping a Kleinbild PNG can restore its settings instead.")
	r.grid.Hide()
	r.box = container.NewVBox(
		container.NewBorder(nil, nil, nil, r.add, shell.SectionTitle("References")),
		r.grid, r.hint)
	return r.box
}

// show rebuilds the thumbnails of refs; thumb starts loading one, remove takes one away.
func (r *refsSection) show(refs []string, thumb func(*shell.ThumbImage, string), remove func(string)) {
	var cells []fyne.CanvasObject
	for _, p := range refs {
		th := shell.NewThumbImage(fyne.NewSquareSize(refCell))
		thumb(th, p)
		rm := widgets.NewTipButton(r.sh.Tips, theme.CancelIcon(), "Remove this reference", func() { remove(p) })
		cells = append(cells, container.NewStack(th,
			container.NewVBox(container.NewHBox(layout.NewSpacer(), rm))))
	}
	r.grid.Objects = cells
	r.grid.Refresh()
	if len(refs) == 0 {
		r.hint.Show()
		r.grid.Hide()
	} else {
		r.hint.Hide()
		r.grid.Show()
	}
}

// addReference appends an image file to the references (without refreshing the view),
// after checking that the engine can use it.
func (r *refsSection) addReference(path string) error {
	if err := imagefile.CheckReference(path); err != nil {
		return err
	}
	return r.appendReference(path)
}

// appendReference adds a checked reference unless it is there already or the list is full.
func (r *refsSection) appendReference(path string) error {
	switch {
	case slices.Contains(r.paths, path):
		return nil
	case len(r.paths) >= engine.MaxReferences:
		return fmt.Errorf("at most %d reference images can be used at once", engine.MaxReferences)
	}
	r.paths = append(r.paths, path)
	return nil
}

// AddReference adds an image file as a reference and shows it.
func (u *UI) AddReference(path string) { u.refs.addAndShow(path) }

// addAndShow is AddReference.
func (r *refsSection) addAndShow(path string) {
	if err := r.addReference(path); err != nil {
		r.sh.ShowErrorAbout(shell.TopicRefs, err)
	} else {
		r.sh.ClearBanner(shell.TopicRefs)
	}
	r.refresh()
}

func (r *refsSection) remove(path string) {
	r.paths = slices.DeleteFunc(r.paths, func(p string) bool { return p == path })
	r.sh.ClearBanner(shell.TopicRefs) // the reference it was about may be the one removed
	r.refresh()
}

// RefPaths are the references' paths, in order.
func (r *refsSection) RefPaths() []string { return r.paths }

// ReplaceRefs makes paths the references (those that can be added) and returns the ones
// that could not be added.
func (r *refsSection) ReplaceRefs(paths []string) (missing []string) {
	r.paths = nil
	for _, p := range paths {
		if err := r.addReference(p); err != nil {
			missing = append(missing, p)
		}
	}
	r.refresh()
	return missing
}

// refresh rebuilds the reference thumbnails.
func (r *refsSection) refresh() {
	r.show(r.paths, r.loadFileThumb, r.remove)
	r.estimateSoon()
	r.remember()
}

// loadFileThumb shows the thumbnail of an image file outside the gallery in th.
func (r *refsSection) loadFileThumb(th *shell.ThumbImage, path string) {
	if e, ok := r.galleryByPath(path); ok {
		r.sh.LoadThumb(th, e.SHA256, path)
		return
	}
	key, err := thumbcache.FileKey(path)
	if err != nil {
		th.SetBroken()
		return
	}
	r.sh.LoadThumb(th, key, path)
}

func (r *refsSection) galleryByPath(path string) (gallery.Entry, bool) {
	if r.sh.Gallery == nil {
		return gallery.Entry{}, false
	}
	return r.sh.Gallery.ByPath(path)
}

// showAdd opens the chooser for reference images: several can be picked at once.
// It opens in the folder references were last added from, else the pictures folder.
func (r *refsSection) showAdd() *fileChooser {
	last := r.sh.Settings.ReferenceDir
	return openChooser(r.sh, "Add reference images", chooseImages, func() string {
		home, cfg := userdirs.Dirs()
		return userdirs.Start(last, home, cfg, runtime.GOOS)
	}, func(paths []string) {
		r.sh.Settings.ReferenceDir = filepath.Dir(paths[len(paths)-1])
		r.sh.Remember(r.sh.Settings)
		r.addFiles(paths, nil)
	})
}

// HandleDrop takes files dropped onto the window. Adapter (safetensors) files join the
// Adapters section; images become references; a single PNG made by Kleinbild first asks whether to restore its settings or use it as a reference.
// The files are read on a background goroutine (a slow disk or a large file never stalls
// the window); the result is applied through u.post.
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
	return u.adapters.dropAdapters(paths, errs, u.dropImages)
}

// dropImages takes dropped image paths (see HandleDrop).
func (u *UI) dropImages(paths []string, errs []error) <-chan struct{} {
	if len(paths) != 1 || !strings.EqualFold(filepath.Ext(paths[0]), ".png") {
		return u.refs.addFiles(paths, errs)
	}
	done := make(chan struct{})
	u.BG.Add(1)
	go func() {
		defer u.BG.Done()
		if meta, ok, err := imageio.ReadMetadata(paths[0]); err == nil && ok {
			u.Post(func() {
				defer close(done)
				u.askRestore(paths[0], meta)
				u.ShowError(errors.Join(errs...))
			})
			return
		}
		checks := imagefile.CheckReferences(paths)
		u.Post(func() {
			defer close(done)
			u.refs.apply(paths, checks, errs)
		})
	}()
	return done
}

// addFiles checks image files off the UI goroutine and adds those that can be
// used as references; errs are earlier problems to report with theirs. The channel is
// closed once the result is applied.
func (r *refsSection) addFiles(paths []string, errs []error) <-chan struct{} {
	done := make(chan struct{})
	r.sh.BG.Add(1)
	go func() {
		defer r.sh.BG.Done()
		checks := imagefile.CheckReferences(paths)
		r.sh.Post(func() {
			defer close(done)
			r.apply(paths, checks, errs)
		})
	}()
	return done
}

// apply adds the checked paths and reports the problems in the banner.
func (r *refsSection) apply(paths []string, checks, errs []error) {
	var added []string
	for i, p := range paths {
		err := checks[i]
		if err == nil {
			err = r.appendReference(p)
		}
		if err != nil {
			errs = append(errs, err)
		} else {
			added = append(added, filepath.Base(p))
		}
	}
	r.refresh()
	r.tellAdded(added)
	if len(errs) > 0 {
		r.sh.ShowErrorAbout(shell.TopicRefs, errors.Join(errs...))
	} else {
		r.sh.ClearBanner(shell.TopicRefs)
	}
}

// tellAdded says which references were just added, and scrolls the form to them (they
// sit at its end), so that a drop never changes the next run unseen.
func (r *refsSection) tellAdded(names []string) {
	if len(names) == 0 {
		return
	}
	msg := "Added " + names[0] + " as a reference image."
	if len(names) > 1 {
		msg = fmt.Sprintf("Added %d reference images: %s.", len(names), strings.Join(names, ", "))
	}
	r.sh.SetStatus(msg)
	r.showAdded()
}

// askRestore offers the two uses of a dropped Kleinbild PNG.
func (u *UI) askRestore(path string, m imageio.Metadata) {
	th := shell.NewThumbImage(fyne.NewSquareSize(120))
	u.refs.loadFileThumb(th, path)
	summary := widget.NewLabel(imagefile.Describe(m) + imagefile.AdaptersDetail(m.Adapters))
	summary.Wrapping = fyne.TextWrapWord
	prompt := widget.NewLabel("“" + jobs.Ellipsize(m.Prompt, 240) + "”")
	prompt.Wrapping = fyne.TextWrapWord
	prompt.TextStyle.Italic = true
	content := container.NewBorder(nil, nil, th, nil,
		container.NewVBox(widget.NewLabel(filepath.Base(path)+" was made with Kleinbild."), prompt, summary))
	d := dialog.NewCustomWithoutButtons("Restore settings?", content, u.Win)
	restore := widget.NewButton("Restore settings", func() { d.Hide(); u.RestoreSettings(m) })
	restore.Importance = widget.HighImportance
	asRef := widget.NewButton("Use as reference", func() { d.Hide(); u.AddReference(path) })
	cancel := widget.NewButton("Cancel", d.Hide)
	d.SetButtons([]fyne.CanvasObject{cancel, asRef, restore})
	d.Resize(fyne.NewSize(560, 0))
	d.Show()
}
