package app

import (
	"bufio"
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
)

// chooseWhat is what a fileChooser picks.
type chooseWhat int

const (
	chooseImages chooseWhat = iota // one or more image files
	chooseFolder                   // one folder
)

// dirItem is one entry of a listed folder.
type dirItem struct {
	name string
	dir  bool
}

// fileChooser is Kleinbild's file and folder picker: a path that can be typed, shortcuts to
// the parent, home and pictures folders, and the folder's subfolders and image files, of
// which several can be ticked. Folders are read off the UI goroutine.
type fileChooser struct {
	u    *UI
	what chooseWhat
	done func(paths []string) // called with what was chosen; not called on Cancel

	dir     string    // the folder shown ("" until the first listing arrives)
	items   []dirItem // its subfolders, then its files
	picked  []string  // ticked files (absolute paths), in the order ticked
	loading bool      // a listing is on its way
	gen     int       // the latest listing; older results are dropped

	path *widget.Entry
	list *widget.List
	msg  *widget.Label
	ok   *widget.Button
	dlg  *dialog.CustomDialog
}

// openChooser shows a chooser titled title. start runs off the UI goroutine and returns the
// folder to show first. done receives the chosen paths (images: at least one file; folder:
// exactly one folder).
func (u *UI) openChooser(title string, what chooseWhat, start func() string, done func([]string)) *fileChooser {
	c := &fileChooser{u: u, what: what, done: done}
	c.path = widget.NewEntry()
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
			h, cfg := userDirs()
			if p := picturesDir(h, cfg, runtime.GOOS); p != "" {
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
			return container.NewBorder(nil, nil, widget.NewIcon(theme.FolderIcon()), nil, widget.NewLabel(""))
		},
		c.updateRow)
	c.list.OnSelected = c.tapped
	c.msg = widget.NewLabel("")
	c.msg.Wrapping = fyne.TextWrapWord
	c.msg.SizeName = theme.SizeNameCaptionText

	c.dlg = dialog.NewCustomWithoutButtons(title, container.NewBorder(
		container.NewVBox(c.path, container.NewHBox(up, home, pics)),
		c.msg, nil, nil, c.list), u.win)
	cancel := widget.NewButton("Cancel", c.dlg.Hide)
	c.ok = widget.NewButtonWithIcon("", theme.ConfirmIcon(), c.confirm)
	c.ok.Importance = widget.HighImportance
	c.dlg.SetButtons([]fyne.CanvasObject{cancel, c.ok})
	c.refreshOK()
	win := u.win.Canvas().Size()
	c.dlg.Resize(fyne.NewSize(min(760, win.Width-32), min(560, win.Height-32)))
	c.dlg.Show()
	c.load(func() (string, error) { return start(), nil })
	return c
}

func (c *fileChooser) updateRow(id widget.ListItemID, o fyne.CanvasObject) {
	if id < 0 || id >= len(c.items) {
		return
	}
	it := c.items[id]
	row := o.(*fyne.Container)
	icon, label := row.Objects[1].(*widget.Icon), row.Objects[0].(*widget.Label)
	switch {
	case it.dir:
		icon.SetResource(theme.FolderIcon())
	case slices.Contains(c.picked, filepath.Join(c.dir, it.name)):
		icon.SetResource(theme.CheckButtonCheckedIcon())
	default:
		icon.SetResource(theme.CheckButtonIcon())
	}
	label.SetText(it.name)
}

// tapped opens a folder or ticks (unticks) a file.
func (c *fileChooser) tapped(id widget.ListItemID) {
	c.list.UnselectAll()
	if id < 0 || id >= len(c.items) {
		return
	}
	it := c.items[id]
	p := filepath.Join(c.dir, it.name)
	if it.dir {
		c.open(p)
		return
	}
	c.toggle(p)
	c.list.RefreshItem(id)
}

// toggle ticks or unticks the file p.
func (c *fileChooser) toggle(p string) {
	if i := slices.Index(c.picked, p); i >= 0 {
		c.picked = slices.Delete(c.picked, i, i+1)
	} else {
		c.picked = append(c.picked, p)
	}
	c.refreshOK()
}

// refreshOK labels the confirm button with what it will do.
func (c *fileChooser) refreshOK() {
	if c.what == chooseFolder {
		c.ok.SetText("Use this folder")
		if c.dir == "" || c.loading {
			c.ok.Disable()
		} else {
			c.ok.Enable()
		}
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

func (c *fileChooser) confirm() {
	var out []string
	switch {
	case c.what == chooseFolder && c.dir != "":
		out = []string{c.dir}
	case c.what == chooseImages && len(c.picked) > 0:
		out = slices.Clone(c.picked)
	default:
		return
	}
	c.dlg.Hide()
	c.done(out)
}

// open shows the folder dir.
func (c *fileChooser) open(dir string) {
	c.load(func() (string, error) { return dir, nil })
}

// load lists the folder that where names, off the UI goroutine, and shows it; a folder
// that cannot be read leaves the current one in place with a message.
func (c *fileChooser) load(where func() (string, error)) {
	c.gen++
	my := c.gen
	c.loading = true
	c.refreshOK()
	u := c.u
	u.bg.Add(1)
	go func() {
		defer u.bg.Done()
		dir, err := where()
		var items []dirItem
		if err == nil {
			items, err = listDir(dir, c.what == chooseImages)
		}
		u.post(func() {
			if my != c.gen {
				return
			}
			c.loading = false
			var pick errPickFile
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
				c.msg.SetText(sentence(err.Error()))
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
func (c *fileChooser) summary() string {
	var dirs, files int
	for _, it := range c.items {
		if it.dir {
			dirs++
		} else {
			files++
		}
	}
	if c.what == chooseFolder {
		return fmt.Sprintf("%d folder(s). Open the folder you want and press Use this folder.", dirs)
	}
	s := fmt.Sprintf("%d image(s), %d folder(s). Tick the images to add; you can tick images in several folders.", files, dirs)
	if files == 0 {
		s = fmt.Sprintf("No images here (%d folder(s)).", dirs)
	}
	return s
}

// submit takes the typed path: a folder is opened; an image file is added with the ticked
// ones (images) and the chooser closes.
func (c *fileChooser) submit(text string) {
	p := expandPath(text, c.dir)
	if p == "" {
		return
	}
	c.load(func() (string, error) {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			return "", fmt.Errorf("%s: %w", p, plainFSError(err))
		case fi.IsDir():
			return p, nil
		case c.what == chooseFolder:
			return "", fmt.Errorf("%s is a file, not a folder", p)
		case !fi.Mode().IsRegular():
			return "", fmt.Errorf("%s is not a regular file", p)
		case !isImageFile(p):
			return "", fmt.Errorf("%s is not an image Kleinbild can read", filepath.Base(p))
		}
		return "", errPickFile{p}
	})
}

// errPickFile is how a typed file path travels back from load: it is picked, not listed.
type errPickFile struct{ path string }

func (e errPickFile) Error() string { return e.path }

// plainFSError names common file system errors in plain words.
func plainFSError(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("no such file or folder")
	case errors.Is(err, fs.ErrPermission):
		return errors.New("permission denied")
	}
	return err
}

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
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("the folder %s cannot be read: %w", dir, plainFSError(err))
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
		case mode.IsRegular() && images && isImageFile(name):
			items = append(items, dirItem{name: name})
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

// userDirs returns the home folder and the XDG configuration folder ("" when unknown).
func userDirs() (home, configHome string) {
	home, _ = os.UserHomeDir()
	configHome = os.Getenv("XDG_CONFIG_HOME")
	if configHome == "" && home != "" {
		configHome = filepath.Join(home, ".config")
	}
	return home, configHome
}

// picturesDir is the user's pictures folder, "" when it does not exist: on Linux and the
// BSDs XDG_PICTURES_DIR from configHome/user-dirs.dirs, else (and when unset) ~/Pictures.
func picturesDir(home, configHome, goos string) string {
	if home == "" {
		return ""
	}
	p := filepath.Join(home, "Pictures")
	if goos != "darwin" && goos != "windows" && configHome != "" {
		if x := xdgUserDir(filepath.Join(configHome, "user-dirs.dirs"), "XDG_PICTURES_DIR", home); x != "" {
			p = x
		}
	}
	if !isDir(p) {
		return ""
	}
	return p
}

// xdgUserDir reads one entry of a user-dirs.dirs file (lines like
// XDG_PICTURES_DIR="$HOME/Pictures"); "" when it is missing or names the home folder
// itself (which the specification uses to disable it).
func xdgUserDir(file, key, home string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) != key {
			continue
		}
		v = strings.Trim(strings.TrimSpace(v), `"`)
		switch {
		case v == "$HOME" || v == "$HOME/":
			return ""
		case strings.HasPrefix(v, "$HOME/"):
			return filepath.Join(home, v[len("$HOME/"):])
		case filepath.IsAbs(v):
			return filepath.Clean(v)
		}
		return ""
	}
	return ""
}

// startFolder is where a chooser of images opens: the folder used last, else the user's
// pictures folder, else home, else the current folder.
func startFolder(last, home, configHome, goos string) string {
	if last != "" && isDir(last) {
		return last
	}
	if p := picturesDir(home, configHome, goos); p != "" {
		return p
	}
	if home != "" && isDir(home) {
		return home
	}
	wd, _ := os.Getwd()
	return wd
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
