// Package inputs holds what a generation takes besides the form's fields: the reference
// images and the adapters (LoRA/LoKr) with the LoRA folder, and the files dropped onto the
// window that become either.
package inputs

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

	"kleinbild/app/chooser"
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

// Refs is the References part of the side panel: the Add… button, a thumbnail with a
// remove button for each of paths, and a hint while there are none.
type Refs struct {
	sh *shell.Shell
	RefsDeps
	paths []string // reference image paths
	// restored is set once the remembered references are back (Restore): until then an
	// empty list is the form still being built, not the user's choice.
	restored bool

	add  *widget.Button
	grid *fyne.Container
	hint *widget.RichText
	box  *fyne.Container
}

// RefsDeps is what the references use of the other components; UI.wire gives it.
type RefsDeps struct {
	// EstimateSoon asks the fit line for a new estimate; ShowAdded scrolls the form to the
	// references, at its end.
	EstimateSoon, ShowAdded func()
	// RestoreSettings restores the settings a dropped Kleinbild PNG was made with.
	RestoreSettings func(imageio.Metadata)
}

// NewRefs makes the References section (built by Build).
func NewRefs(sh *shell.Shell, deps RefsDeps) Refs { return Refs{sh: sh, RefsDeps: deps} }

// Build creates the References section of the side panel.
func (r *Refs) Build() fyne.CanvasObject {
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
func (r *Refs) show(refs []string, thumb func(*shell.ThumbImage, string), remove func(string)) {
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
func (r *Refs) addReference(path string) error {
	if err := imagefile.CheckReference(path); err != nil {
		return err
	}
	return r.appendReference(path)
}

// appendReference adds a checked reference unless it is there already or the list is full.
func (r *Refs) appendReference(path string) error {
	switch {
	case slices.Contains(r.paths, path):
		return nil
	case len(r.paths) >= engine.MaxReferences:
		return fmt.Errorf("at most %d reference images can be used at once", engine.MaxReferences)
	}
	r.paths = append(r.paths, path)
	return nil
}

// Add adds an image file as a reference and shows it; a file that cannot be one is
// named in the banner, and its problem returned.
func (r *Refs) Add(path string) error {
	err := r.addReference(path)
	if err != nil {
		r.sh.ShowErrorAbout(shell.TopicRefs, err)
	} else {
		r.sh.ClearBanner(shell.TopicRefs)
	}
	r.refresh()
	return err
}

// Remove takes the reference path away.
func (r *Refs) Remove(path string) {
	r.paths = slices.DeleteFunc(r.paths, func(p string) bool { return p == path })
	r.sh.ClearBanner(shell.TopicRefs) // the reference it was about may be the one removed
	r.refresh()
}

// RefPaths are the references' paths, in order.
func (r *Refs) RefPaths() []string { return r.paths }

// ReplaceRefs makes paths the references (those that can be added) and returns the ones
// that could not be added.
func (r *Refs) ReplaceRefs(paths []string) (missing []string) {
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
func (r *Refs) refresh() {
	r.show(r.paths, r.loadFileThumb, r.Remove)
	r.EstimateSoon()
	r.remember()
}

// loadFileThumb shows the thumbnail of an image file outside the gallery in th.
func (r *Refs) loadFileThumb(th *shell.ThumbImage, path string) {
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

func (r *Refs) galleryByPath(path string) (gallery.Entry, bool) {
	if r.sh.Gallery == nil {
		return gallery.Entry{}, false
	}
	return r.sh.Gallery.ByPath(path)
}

// showAdd opens the chooser for reference images: several can be picked at once.
// It opens in the folder references were last added from, else the pictures folder.
func (r *Refs) showAdd() *chooser.Chooser {
	last := r.sh.Settings.ReferenceDir
	return chooser.Open(r.sh, "Add reference images", chooser.Images(), func() string {
		home, cfg := userdirs.Dirs()
		return userdirs.Start(last, home, cfg, runtime.GOOS)
	}, func(paths []string) {
		r.sh.Settings.ReferenceDir = filepath.Dir(paths[len(paths)-1])
		r.sh.Remember(r.sh.Settings)
		r.addFiles(paths, nil)
	})
}

// DropImages takes image paths dropped onto the window, with errs, the earlier problems
// of the drop: they become references, but a single PNG made by Kleinbild first asks
// whether to restore its settings instead. The files are read off the UI goroutine (a
// slow disk or a large file never stalls the window); the channel is closed once the
// result is applied.
func (r *Refs) DropImages(paths []string, errs []error) <-chan struct{} {
	if len(paths) != 1 || !strings.EqualFold(filepath.Ext(paths[0]), ".png") {
		return r.addFiles(paths, errs)
	}
	done := make(chan struct{})
	sh := r.sh
	sh.BG.Add(1)
	go func() {
		defer sh.BG.Done()
		if meta, ok, err := imageio.ReadMetadata(paths[0]); err == nil && ok {
			sh.Post(func() {
				defer close(done)
				r.askRestore(paths[0], meta)
				sh.ShowError(errors.Join(errs...))
			})
			return
		}
		checks := imagefile.CheckReferences(paths)
		sh.Post(func() {
			defer close(done)
			r.apply(paths, checks, errs)
		})
	}()
	return done
}

// addFiles checks image files off the UI goroutine and adds those that can be
// used as references; errs are earlier problems to report with theirs. The channel is
// closed once the result is applied.
func (r *Refs) addFiles(paths []string, errs []error) <-chan struct{} {
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
func (r *Refs) apply(paths []string, checks, errs []error) {
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
func (r *Refs) tellAdded(names []string) {
	if len(names) == 0 {
		return
	}
	msg := "Added " + names[0] + " as a reference image."
	if len(names) > 1 {
		msg = fmt.Sprintf("Added %d reference images: %s.", len(names), strings.Join(names, ", "))
	}
	r.sh.SetStatus(msg)
	r.ShowAdded()
}

// askRestore offers the two uses of a dropped Kleinbild PNG.
func (r *Refs) askRestore(path string, m imageio.Metadata) {
	th := shell.NewThumbImage(fyne.NewSquareSize(120))
	r.loadFileThumb(th, path)
	summary := widget.NewLabel(imagefile.Describe(m) + imagefile.AdaptersDetail(m.Adapters))
	summary.Wrapping = fyne.TextWrapWord
	prompt := widget.NewLabel("“" + jobs.Ellipsize(m.Prompt, 240) + "”")
	prompt.Wrapping = fyne.TextWrapWord
	prompt.TextStyle.Italic = true
	content := container.NewBorder(nil, nil, th, nil,
		container.NewVBox(widget.NewLabel(filepath.Base(path)+" was made with Kleinbild."), prompt, summary))
	d := dialog.NewCustomWithoutButtons("Restore settings?", content, r.sh.Win)
	restore := widget.NewButton("Restore settings", func() { d.Hide(); r.RestoreSettings(m) })
	restore.Importance = widget.HighImportance
	asRef := widget.NewButton("Use as reference", func() { d.Hide(); r.Add(path) })
	cancel := widget.NewButton("Cancel", d.Hide)
	d.SetButtons([]fyne.CanvasObject{cancel, asRef, restore})
	d.Resize(fyne.NewSize(560, 0))
	d.Show()
}
