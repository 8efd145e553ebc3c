// Package chooser is Kleinbild's own file and folder picker: a path that can be typed,
// shortcuts to the parent, home and pictures folders, and a folder's subfolders and files
// with thumbnails. It knows none of its callers: which files it lists, how it checks a
// typed one and how it words a folder come from them (Files).
package chooser

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/fserr"
	"kleinbild/app/humanize"
	"kleinbild/app/imagefile"
	"kleinbild/app/saveas"
	"kleinbild/app/shell"
	"kleinbild/app/thumbcache"
	"kleinbild/app/userdirs"
	"kleinbild/app/widgets"
	"kleinbild/internal/safefile"
)

// mode is what a Chooser does.
type mode int

const (
	pickFiles  mode = iota // one or more files, as its Files say
	pickFolder             // one folder
	saveCopy               // a file to save a copy of an image as
)

// Files says which files a chooser lists and picks, and in what words: its caller's own.
type Files struct {
	// Want reports whether a file of this name is listed.
	Want func(name string) bool
	// Check refuses a typed file path with the reason (nil: any regular file is taken).
	Check func(path string) error
	// Summary describes a listed folder of files such files and dirs folders.
	Summary func(files, dirs int) string
	// One makes a tap on a file choose it, alone; else files are ticked, several at once.
	One bool
	// Thumbs shows the image files' thumbnails.
	Thumbs bool
}

// dirItem is one entry of a listed folder.
type dirItem struct {
	name string
	dir  bool
	key  string // an image file's thumbnail cache key ("" when unknown)
}

// chooserThumb is the side of the thumbnails in a chooser's list.
const chooserThumb = 28

// Chooser is Kleinbild's file and folder picker: a path that can be typed, shortcuts to
// the parent, home and pictures folders, and the folder's subfolders and the files its
// caller wants, of which several can be ticked. Folders are read off the UI goroutine. In
// save mode it has a file name to edit, lists image files only for reference and writes
// a copy of src.
type Chooser struct {
	sh    *shell.Shell
	what  mode
	files Files                // pickFiles: what is listed and picked
	done  func(paths []string) // called with what was chosen (saved); not called on Cancel

	dir     string    // the folder shown ("" until the first listing arrives)
	items   []dirItem // its subfolders, then its files
	picked  []string  // ticked files (absolute paths), in the order ticked
	loading bool      // a listing is on its way
	gen     int       // the latest listing; older results are dropped

	// Save mode: the file copied, and whether a save is under way.
	src    string
	saving bool
	// thumbsAsked counts the thumbnails the list asked for (rows on screen only).
	thumbsAsked int

	path *widgets.EscapeEntry
	name *widgets.EscapeEntry // the file name (save mode)
	list *widget.List
	msg  *widget.Label
	ok   *widget.Button
	dlg  *dialog.CustomDialog
}

// Open shows a chooser titled title that picks the files f says. start runs off the UI
// goroutine and returns the folder to show first. done receives the chosen paths (at
// least one).
func Open(sh *shell.Shell, title string, f Files, start func() string, done func([]string)) *Chooser {
	return launch(&Chooser{sh: sh, what: pickFiles, files: f, done: done}, title, start)
}

// OpenFolder shows a chooser titled title that picks one folder, starting in the folder
// start returns (run off the UI goroutine); done receives it.
func OpenFolder(sh *shell.Shell, title string, start func() string, done func(dir string)) *Chooser {
	return launch(&Chooser{sh: sh, what: pickFolder, done: func(p []string) { done(p[0]) }}, title, start)
}

// launch builds c's dialog and lists its first folder.
func launch(c *Chooser, title string, start func() string) *Chooser {
	c.build(title)
	c.load(func() (string, error) { return start(), nil })
	return c
}

// OpenSave shows a chooser that saves a copy of the image file src, named name at first,
// in the folder start returns (run off the UI goroutine). It asks before replacing a file;
// saved receives the new file's path.
func OpenSave(sh *shell.Shell, title, src, name string, start func() string, saved func(path string)) *Chooser {
	c := &Chooser{sh: sh, what: saveCopy, src: src, done: func(p []string) { saved(p[0]) }}
	c.name = widgets.NewEscapeEntry()
	c.name.SetText(name)
	c.name.OnSubmitted = func(string) { c.confirm() }
	c.build(title)
	c.load(func() (string, error) { return start(), nil })
	return c
}

// Hide closes the chooser as its Cancel button does (Escape; see shell.Shell.Chooser).
func (c *Chooser) Hide() { c.dlg.Hide() }

// build makes the chooser's widgets and shows its dialog.
func (c *Chooser) build(title string) {
	sh := c.sh
	c.path = widgets.NewEscapeEntry()
	c.path.SetPlaceHolder("Type a folder or file path and press Enter")
	c.path.OnSubmitted = c.submit
	up := widget.NewButtonWithIcon("Up", theme.MoveUpIcon(), func() {
		if c.dir != "" {
			c.open(filepath.Dir(c.dir))
		}
	})
	home := widget.NewButtonWithIcon("Home", theme.HomeIcon(), func() {
		c.load(func() (string, error) {
			h, err := os.UserHomeDir()
			if err != nil {
				return "", fmt.Errorf("the home folder is not known: %w", err)
			}
			return h, nil
		})
	})
	pics := widget.NewButtonWithIcon("Pictures", theme.MediaPhotoIcon(), func() {
		c.load(func() (string, error) {
			h, cfg := userdirs.Dirs()
			if p := userdirs.Pictures(h, cfg, runtime.GOOS); p != "" {
				return p, nil
			}
			return "", errors.New("there is no pictures folder")
		})
	})
	for _, b := range []*widget.Button{up, home, pics} {
		b.Importance = widget.LowImportance
	}
	c.list = widget.NewList(func() int { return len(c.items) },
		func() fyne.CanvasObject {
			th := shell.NewThumbImage(fyne.NewSquareSize(chooserThumb))
			return container.NewBorder(nil, nil, container.NewHBox(widget.NewIcon(theme.FolderIcon()), th), nil, widget.NewLabel(""))
		},
		c.updateRow)
	c.list.OnSelected = c.tapped
	c.msg = widget.NewLabel("")
	c.msg.Wrapping = fyne.TextWrapWord
	c.msg.SizeName = theme.SizeNameCaptionText

	bottom := fyne.CanvasObject(c.msg)
	if c.what == saveCopy {
		bottom = container.NewVBox(container.NewBorder(nil, nil, widget.NewLabel("File name"), saveas.NewFormatSelect(&c.name.Entry), c.name), c.msg)
	}
	c.dlg = dialog.NewCustomWithoutButtons(title, container.NewBorder(
		container.NewVBox(c.path, container.NewHBox(up, home, pics)),
		bottom, nil, nil, c.list), sh.Win)
	cancel := widget.NewButton("Cancel", c.dlg.Hide)
	// Escape closes the chooser, from its fields too (the window hides sh.Chooser for the rest).
	c.path.OnEscape = c.dlg.Hide
	if c.name != nil {
		c.name.OnEscape = c.dlg.Hide
	}
	sh.Chooser = c
	c.dlg.SetOnClosed(func() {
		if sh.Chooser == c {
			sh.Chooser = nil
		}
	})
	c.ok = widget.NewButtonWithIcon("", theme.ConfirmIcon(), c.confirm)
	c.ok.Importance = widget.HighImportance
	c.dlg.SetButtons([]fyne.CanvasObject{cancel, c.ok})
	c.refreshOK()
	win := sh.Win.Canvas().Size()
	c.dlg.Resize(fyne.NewSize(min(760, win.Width-32), min(560, win.Height-32)))
	c.dlg.Show()
}

// updateRow shows items[id] in a list row: a folder, or an image file with its thumbnail
// (made off the UI goroutine, and only for the rows the list shows).
func (c *Chooser) updateRow(id widget.ListItemID, o fyne.CanvasObject) {
	if id < 0 || id >= len(c.items) {
		return
	}
	it := c.items[id]
	row := o.(*fyne.Container)
	left := row.Objects[1].(*fyne.Container)
	icon, th, label := left.Objects[0].(*widget.Icon), left.Objects[1].(*shell.ThumbImage), row.Objects[0].(*widget.Label)
	label.Importance = widget.MediumImportance
	switch {
	case it.dir:
		icon.SetResource(theme.FolderIcon())
	case c.what == pickFiles && c.files.One:
		icon.SetResource(theme.FileIcon())
	case c.what == saveCopy:
		icon.SetResource(theme.FileImageIcon())
		label.Importance = widget.LowImportance // there for reference: a copy goes beside it
	case slices.Contains(c.picked, filepath.Join(c.dir, it.name)):
		icon.SetResource(theme.CheckButtonCheckedIcon())
	default:
		icon.SetResource(theme.CheckButtonIcon())
	}
	label.SetText(it.name)
	switch {
	case it.dir || (c.what == pickFiles && !c.files.Thumbs):
		th.Key = ""
		th.Hide()
	case it.key == "":
		th.Key = ""
		th.Show()
		th.SetBroken()
	default:
		th.Show()
		if th.Key != it.key {
			c.thumbsAsked++
		}
		if th.Key != it.key || (th.Img.Image == nil && !th.Broken.Visible()) { // new, or not made yet (or dropped)
			c.sh.LoadThumb(th, it.key, filepath.Join(c.dir, it.name))
		}
	}
}

// tapped opens a folder or ticks (unticks) a file; in save mode a file's name becomes the
// name to save as.
func (c *Chooser) tapped(id widget.ListItemID) {
	c.list.UnselectAll()
	if id < 0 || id >= len(c.items) {
		return
	}
	it := c.items[id]
	p := filepath.Join(c.dir, it.name)
	switch {
	case it.dir:
		c.open(p)
	case c.what == saveCopy:
		c.name.SetText(it.name)
	case c.files.One:
		c.picked = []string{p}
		c.confirm()
	default:
		c.toggle(p)
		c.list.RefreshItem(id)
	}
}

// toggle ticks or unticks the file p.
func (c *Chooser) toggle(p string) {
	if i := slices.Index(c.picked, p); i >= 0 {
		c.picked = slices.Delete(c.picked, i, i+1)
	} else {
		c.picked = append(c.picked, p)
	}
	c.refreshOK()
}

// refreshOK labels the confirm button with what it will do.
func (c *Chooser) refreshOK() {
	if c.what == saveCopy {
		c.ok.SetText("Save")
		if c.dir == "" || c.loading || c.saving {
			c.ok.Disable()
		} else {
			c.ok.Enable()
		}
		return
	}
	if c.what == pickFolder {
		c.ok.SetText("Use this folder")
		if c.dir == "" || c.loading {
			c.ok.Disable()
		} else {
			c.ok.Enable()
		}
		return
	}
	if c.files.One { // a tap on a file chooses it, so the button only says so
		c.ok.SetText("Tap a file to choose it")
		c.ok.Disable()
		return
	}
	if len(c.picked) == 0 {
		c.ok.SetText("Add")
		c.ok.Disable()
		return
	}
	c.ok.SetText(fmt.Sprintf("Add (%d)", len(c.picked)))
	c.ok.Enable()
}

func (c *Chooser) confirm() {
	var out []string
	switch {
	case c.what == pickFolder && c.dir != "":
		out = []string{c.dir}
	case c.what == pickFiles && len(c.picked) > 0:
		out = slices.Clone(c.picked)
	case c.what == saveCopy && c.dir != "" && !c.loading:
		c.save(expandPath(c.name.Text, c.dir))
		return
	default:
		return
	}
	c.dlg.Hide()
	c.done(out)
}

// open shows the folder dir.
func (c *Chooser) open(dir string) {
	c.load(func() (string, error) { return dir, nil })
}

// load lists the folder that where names, off the UI goroutine, and shows it; a folder
// that cannot be read leaves the current one in place with a message.
func (c *Chooser) load(where func() (string, error)) {
	c.gen++
	my := c.gen
	c.loading = true
	c.refreshOK()
	sh := c.sh
	sh.BG.Add(1)
	go func() {
		defer sh.BG.Done()
		dir, err := where()
		var items []dirItem
		if err == nil {
			items, err = listDirFiles(dir, c.wantsFile())
		}
		sh.Post(func() {
			if my != c.gen {
				return
			}
			c.loading = false
			var pick errPickFile
			if errors.As(err, &pick) && c.what == saveCopy {
				c.refreshOK()
				c.save(pick.path)
				return
			}
			if errors.As(err, &pick) {
				if !slices.Contains(c.picked, pick.path) {
					c.picked = append(c.picked, pick.path)
				}
				c.refreshOK()
				c.confirm()
				return
			}
			if err != nil {
				// The typed path stays, to be corrected.
				c.msg.SetText(shell.Sentence(err.Error()))
				c.refreshOK()
				return
			}
			c.dir, c.items = dir, items
			c.path.SetText(dir)
			c.list.UnselectAll()
			c.list.ScrollToTop()
			c.list.Refresh()
			c.msg.SetText(c.summary())
			c.refreshOK()
		})
	}()
}

// summary describes the listed folder in a few words.
func (c *Chooser) summary() string {
	var dirs, files int
	for _, it := range c.items {
		if it.dir {
			dirs++
		} else {
			files++
		}
	}
	if c.what == pickFiles {
		return c.files.Summary(files, dirs)
	}
	what := humanize.CountList(files, "image", "images", dirs, "folder", "folders")
	switch {
	case c.what == pickFolder && dirs == 0:
		return "No folders here. Press Use this folder to choose this one."
	case c.what == pickFolder:
		return what + ". Open the folder you want and press Use this folder."
	case what == "":
		return "This folder is empty. Type a file name and press Save."
	}
	return what + " here. Open the folder to save in, type a file name and press Save."
}

// wantsFile is the files the chooser lists (nil: none).
func (c *Chooser) wantsFile() func(string) bool {
	switch c.what {
	case pickFiles:
		return c.files.Want
	case pickFolder:
		return nil
	}
	return imagefile.IsImage // save mode: for reference
}

// submit takes the typed path: a folder is opened; an image file is added with the ticked
// ones (images) and the chooser closes.
func (c *Chooser) submit(text string) {
	p := expandPath(text, c.dir)
	if p == "" {
		return
	}
	c.load(func() (string, error) {
		fi, err := os.Stat(p)
		switch {
		case c.what == saveCopy && (err == nil && fi.IsDir()):
			return p, nil
		case c.what == saveCopy:
			return "", errPickFile{p} // save checks it
		case err != nil:
			return "", fmt.Errorf("%s: %w", p, fserr.Plain(err))
		case fi.IsDir():
			return p, nil
		case c.what == pickFolder:
			return "", fmt.Errorf("%s is a file, not a folder", p)
		case !fi.Mode().IsRegular():
			return "", fmt.Errorf("%s is not a regular file", p)
		case c.files.Check != nil:
			if err := c.files.Check(p); err != nil {
				return "", err
			}
		}
		return "", errPickFile{p}
	})
}

// errPickFile is how a typed file path travels back from load: it is picked, not listed.
type errPickFile struct{ path string }

func (e errPickFile) Error() string { return e.path }

// expandPath turns a typed path into an absolute one: "~" is the home folder, and a
// relative path is taken from dir.
func expandPath(text, dir string) string {
	text = strings.TrimSpace(text)
	if text == "" {
		return ""
	}
	if text == "~" || strings.HasPrefix(text, "~/") || strings.HasPrefix(text, `~\`) {
		if home, err := os.UserHomeDir(); err == nil {
			text = filepath.Join(home, text[1:])
		}
	}
	if !filepath.IsAbs(text) && dir != "" {
		text = filepath.Join(dir, text)
	}
	if abs, err := filepath.Abs(text); err == nil {
		text = abs
	}
	return filepath.Clean(text)
}

// listDir lists dir's subfolders and, with images, its image files, folders first, each
// sorted by name. Hidden entries and special files (FIFOs, devices, sockets) are left out;
// symbolic links count as what they point to.
func listDir(dir string, images bool) ([]dirItem, error) {
	if images {
		return listDirFiles(dir, imagefile.IsImage)
	}
	return listDirFiles(dir, nil)
}

// listDirFiles is listDir listing the files whose names want accepts (nil: none); image
// files get thumbnail keys.
func listDirFiles(dir string, want func(name string) bool) ([]dirItem, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("the folder %s cannot be read: %w", dir, fserr.Plain(err))
	}
	var items []dirItem
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		mode := e.Type()
		if mode&fs.ModeSymlink != 0 {
			fi, err := os.Stat(filepath.Join(dir, name))
			if err != nil {
				continue
			}
			mode = fi.Mode().Type()
		}
		switch {
		case mode.IsDir():
			items = append(items, dirItem{name: name, dir: true})
		case mode.IsRegular() && want != nil && want(name):
			var key string
			if imagefile.IsImage(name) {
				key, _ = thumbcache.FileKey(filepath.Join(dir, name))
			}
			items = append(items, dirItem{name: name, key: key})
		}
	}
	slices.SortFunc(items, func(a, b dirItem) int {
		if a.dir != b.dir {
			if a.dir {
				return -1
			}
			return 1
		}
		return strings.Compare(strings.ToLower(a.name), strings.ToLower(b.name))
	})
	return items, nil
}

// save writes the copy to target (save mode): the checks and the copy run off the UI
// goroutine, and an existing file is replaced only once the user agrees.
func (c *Chooser) save(target string) {
	if c.saving || target == "" {
		return
	}
	if filepath.Ext(target) == "" {
		target += filepath.Ext(c.src)
	}
	if _, err := saveas.FormatOf(target); err != nil {
		c.msg.SetText(shell.Sentence(err.Error()))
		return
	}
	c.saving = true
	c.refreshOK()
	sh, src := c.sh, c.src
	sh.BG.Add(1)
	go func() {
		defer sh.BG.Done()
		exists, err := checkSaveTarget(src, target)
		sh.Post(func() {
			if err != nil {
				c.failSave(err)
				return
			}
			if !exists {
				c.writeCopy(target)
				return
			}
			d := dialog.NewConfirm("Replace "+filepath.Base(target)+"?",
				"A file with this name already exists in "+filepath.Dir(target)+". Replace it with a copy of this image?",
				func(ok bool) {
					if ok {
						c.writeCopy(target)
						return
					}
					c.saving = false
					c.refreshOK()
				}, sh.Win)
			d.SetConfirmText("Replace")
			d.SetDismissText("Cancel")
			d.Show()
		})
	}()
}

// writeCopy copies the image to target off the UI goroutine and closes the chooser.
func (c *Chooser) writeCopy(target string) {
	sh, src := c.sh, c.src
	sh.BG.Add(1)
	go func() {
		defer sh.BG.Done()
		err := saveas.WriteCopy(src, target)
		sh.Post(func() {
			if err != nil {
				c.failSave(err)
				return
			}
			c.saving = false
			c.dlg.Hide()
			c.done([]string{target})
		})
	}()
}

// failSave shows why the copy was not saved; the chooser stays open to try again.
func (c *Chooser) failSave(err error) {
	c.saving = false
	c.msg.SetText(shell.Sentence(err.Error()) + ".")
	c.refreshOK()
}

// checkSaveTarget reports whether a copy of src can be saved as target and whether a file
// is there already: the folder must exist, and target must be a new name or an ordinary
// file other than src (never a folder or a device).
func checkSaveTarget(src, target string) (exists bool, err error) {
	name := filepath.Base(target)
	if _, err := saveas.FormatOf(target); err != nil {
		return false, err
	}
	dir := filepath.Dir(target)
	switch fi, err := os.Stat(dir); {
	case err != nil:
		return false, fmt.Errorf("the folder %s cannot be used: %w", dir, fserr.Plain(err))
	case !fi.IsDir():
		return false, fmt.Errorf("%s is not a folder", dir)
	}
	fi, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("%s cannot be used: %w", name, fserr.Plain(err))
	case fi.IsDir():
		return false, fmt.Errorf("%s is a folder: type a file name to save the copy as", name)
	case !fi.Mode().IsRegular():
		return false, fmt.Errorf("%s is %s, not a file an image can be saved in", name, safefile.Describe(fi.Mode()))
	}
	if sfi, err := os.Stat(src); err == nil && os.SameFile(sfi, fi) {
		return false, fmt.Errorf("%s is the image itself: choose another name or folder", name)
	}
	return true, nil
}
