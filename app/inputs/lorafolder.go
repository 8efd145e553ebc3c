package inputs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/chooser"
	"kleinbild/app/fserr"
	"kleinbild/app/shell"
	"kleinbild/app/userdirs"
	"kleinbild/app/widgets"
	"kleinbild/engine/imageio"
	"kleinbild/engine/lora"
)

// loraFolder is the "LoRA folder" setting of the Adapters section: its adapter files are
// read off the UI goroutine (metadata, shapes, SHA-256) and offered in a searchable list;
// a file that cannot be read shows as an error row.
type loraFolder struct {
	s   *Adapters
	dir string

	items   []loraItem // the folder's files, once scanned
	scanned bool       // items are dir's
	dirErr  error      // the folder itself cannot be read (in full)
	gen     int        // the latest scan; older results are dropped

	dirLabel *widget.Label
	search   *widgets.ShortcutEntry
	list     *fyne.Container
	msg      *widget.Label
}

// loraItem is one file of the LoRA folder.
type loraItem struct {
	path   string
	sum    lora.Summary
	sha256 string
	err    error // the file cannot be used
}

// Bounds on a folder's scan and on the rows shown at once.
const (
	maxFolderFiles = 2000
	maxFolderRows  = 40
)

func (f *loraFolder) build(s *Adapters) fyne.CanvasObject {
	f.s = s
	f.dirLabel = widget.NewLabel("")
	f.dirLabel.Wrapping = fyne.TextWrapWord // "None: choose the folder that h…" was cut off
	f.dirLabel.SizeName = theme.SizeNameCaptionText
	choose := widget.NewButtonWithIcon("Choose…", theme.FolderOpenIcon(), f.choose)
	choose.Importance = widget.LowImportance
	f.search = widgets.NewShortcutEntry(false, nil)
	f.search.PassOn = s.sh.PassKey // Ctrl+Q and Ctrl+L work while it has the focus
	f.search.SetPlaceHolder("Search the LoRA folder")
	f.search.OnChanged = func(string) { f.refresh() }
	f.list = container.NewVBox()
	f.msg = widget.NewLabel("")
	f.msg.Wrapping = fyne.TextWrapWord
	f.msg.SizeName = theme.SizeNameCaptionText
	f.showDir()
	return container.NewVBox(
		container.NewBorder(nil, nil, nil, choose, container.NewVBox(shell.SectionTitle("LoRA folder"), f.dirLabel)),
		f.search, f.list, f.msg)
}

// choose asks for the LoRA folder and remembers it.
func (f *loraFolder) choose() {
	sh := f.s.sh
	last := f.dir
	chooser.OpenFolder(sh, "Choose the LoRA folder", func() string {
		home, cfg := userdirs.Dirs()
		return userdirs.Start(last, home, cfg, runtime.GOOS)
	}, func(dir string) {
		f.setDir(dir)
		sh.Settings.LoraDir = f.dir
		sh.Remember(sh.Settings)
	})
}

// setDir makes dir the LoRA folder and scans it ("" for none).
func (f *loraFolder) setDir(dir string) <-chan struct{} {
	f.dir, f.items, f.scanned, f.dirErr = dir, nil, false, nil
	f.gen++
	f.showDir()
	done := make(chan struct{})
	if dir == "" {
		f.refresh()
		close(done)
		return done
	}
	f.msg.SetText("Reading the LoRA folder…")
	f.msg.Show()
	f.list.RemoveAll()
	my, sh := f.gen, f.s.sh
	sh.BG.Add(1)
	go func() {
		defer sh.BG.Done()
		items, err := listFolder(sh.Life, dir, true)
		sh.Post(func() {
			defer close(done)
			if my != f.gen {
				return
			}
			f.items, f.scanned, f.dirErr = items, err == nil, err
			f.refresh()
		})
	}()
	return done
}

func (f *loraFolder) showDir() {
	if f.dirLabel == nil {
		return
	}
	if f.dir == "" {
		f.dirLabel.SetText("None: choose the folder that holds your LoRA files.")
		f.search.Hide()
	} else {
		f.dirLabel.SetText(f.dir)
		f.search.Show()
	}
}

// hashes maps the scanned files' SHA-256 to their paths; nil while the folder is not
// scanned.
func (f *loraFolder) hashes() map[string]string {
	if !f.scanned {
		return nil
	}
	out := map[string]string{}
	for _, it := range f.items {
		if it.sha256 != "" {
			out[it.sha256] = it.path
		}
	}
	return out
}

// matches reports whether it holds every word of the search (file name, name, base model,
// the model it fits, trigger words), ignoring case.
func (it loraItem) matches(words []string) bool {
	text := strings.ToLower(strings.Join(append([]string{filepath.Base(it.path), it.sum.Name, it.sum.BaseModel, it.sum.Fits}, it.sum.Triggers...), "\n"))
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// refresh shows the files that match the search.
func (f *loraFolder) refresh() {
	f.list.RemoveAll()
	if f.dir == "" {
		f.msg.Hide()
		return
	}
	words := strings.Fields(strings.ToLower(f.search.Text))
	shown, matched := 0, 0
	for _, it := range f.items {
		if !it.matches(words) {
			continue
		}
		matched++
		if shown < maxFolderRows {
			f.list.Add(f.row(it))
			shown++
		}
	}
	switch {
	case f.dirErr != nil:
		f.msg.SetText(shell.Sentence(f.dirErr.Error()) + ".")
	case !f.scanned:
		f.msg.SetText("Reading the LoRA folder…")
	case len(f.items) == 0:
		f.msg.SetText("No adapter files (.safetensors) in this folder.")
	case matched == 0:
		f.msg.SetText("No adapter in the folder matches the search.")
	case matched > shown:
		f.msg.SetText(fmt.Sprintf("%d more match: narrow the search.", matched-shown))
	default:
		f.msg.SetText("")
	}
	f.msg.Hidden = f.msg.Text == ""
	f.msg.Refresh()
}

// row is one file of the folder: an error row, or its name and metadata with an Add button.
func (f *loraFolder) row(it loraItem) fyne.CanvasObject {
	file := filepath.Base(it.path)
	if it.err != nil {
		l := widget.NewLabel(file + ": " + adapterError(it.err))
		l.Wrapping = fyne.TextWrapWord
		l.SizeName = theme.SizeNameCaptionText
		l.Importance = widget.DangerImportance
		return l
	}
	name := it.sum.Name
	if name == "" {
		name = file
	}
	title := widget.NewLabel(name)
	title.Truncation = fyne.TextTruncateEllipsis
	add := widget.NewButtonWithIcon("", theme.ContentAddIcon(), func() { f.s.addFromFolder(it.path) })
	add.Importance = widget.LowImportance
	info := describeAdapter(it.sum)
	if name != file {
		info = file + " · " + info
	}
	return container.NewVBox(container.NewBorder(nil, nil, nil, add, title), shell.Hint(info))
}

// describeAdapter is one line about an adapter: kind, rank, what it fits, base model and
// trigger words.
func describeAdapter(sum lora.Summary) string {
	var kinds, ranks []string
	for _, k := range sum.Kinds {
		kinds = append(kinds, k.String())
	}
	for _, r := range sum.Ranks {
		ranks = append(ranks, strconv.Itoa(r))
	}
	parts := []string{strings.Join(kinds, "+") + " (" + sum.Format.String() + ")"}
	if len(ranks) > 0 {
		parts = append(parts, "rank "+strings.Join(ranks, ", "))
	}
	if sum.Fits != "" {
		parts = append(parts, "for "+sum.Fits)
	}
	if sum.BaseModel != "" {
		parts = append(parts, "base model "+sum.BaseModel)
	}
	if len(sum.Triggers) > 0 {
		parts = append(parts, "trigger words: "+strings.Join(sum.Triggers, ", "))
	}
	return strings.Join(parts, " · ")
}

// listFolder reads the adapter files of dir (named *.safetensors; any goroutine): with
// parse, each is opened for its summary, and each is hashed. A file that cannot be used
// is an item with its error; the error is about the folder itself.
func listFolder(ctx context.Context, dir string, parse bool) ([]loraItem, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("the LoRA folder cannot be read: %w", fserr.Plain(err))
	}
	var items []loraItem
	for _, e := range entries {
		if ctx.Err() != nil {
			return items, ctx.Err()
		}
		name := e.Name()
		if strings.HasPrefix(name, ".") || !isAdapterName(name) {
			continue
		}
		if len(items) == maxFolderFiles {
			return items, fmt.Errorf("the LoRA folder holds more than %d adapter files; only the first are listed", maxFolderFiles)
		}
		items = append(items, readItem(filepath.Join(dir, name), parse))
	}
	return items, nil
}

// scanFolder is listFolder without the folder's own error.
func scanFolder(ctx context.Context, dir string, parse bool) []loraItem {
	items, _ := listFolder(ctx, dir, parse)
	return items
}

// readItem reads one file of the folder. A panic in the parser becomes the file's error.
func readItem(path string, parse bool) (it loraItem) {
	it.path = path
	defer func() {
		if r := recover(); r != nil {
			it = loraItem{path: path, err: fmt.Errorf("unreadable adapter: %v", r)}
		}
	}()
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		it.err = fserr.Plain(err)
		return it
	case fi.IsDir():
		it.err = fmt.Errorf("a folder, not an adapter file")
		return it
	}
	if parse { // the header and shapes only: a listing does not load the factors
		if it.sum, err = lora.Inspect(path); err != nil {
			it.err = err
			return it
		}
	}
	if it.sha256, err = imageio.SHA256File(path); err != nil {
		it.err = err
	}
	return it
}
