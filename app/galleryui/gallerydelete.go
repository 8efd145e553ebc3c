package galleryui

import (
	"fmt"
	"slices"

	"kleinbild/app/gallery"
)

// deleteChecked moves the checked images to the trash and leaves selection mode.
func (g *View) deleteChecked() {
	es := g.checkedEntries()
	g.SetSelecting(false)
	g.DeleteEntries(es)
}

// DeleteEntries moves images to the trash (off the UI goroutine) and offers Undo. When the
// viewer's image goes, the viewer moves on to the next image in the grid.
func (g *View) DeleteEntries(es []gallery.Entry) {
	sh := g.sh
	sh.Win.Canvas().Unfocus() // Ctrl+Z then undoes this, not the typing in a focused field
	lib := sh.Gallery
	if lib == nil {
		return
	}
	var files []string
	for _, e := range es {
		if !g.pendingDel[e.File] && lib.IndexOf(e.File) >= 0 {
			files = append(files, e.File)
			g.pendingDel[e.File] = true
		}
	}
	if len(files) == 0 {
		return
	}
	// The image to show next if the shown one goes: the first one after it that stays.
	next := ""
	if e, ok := g.View.ShownEntry(); ok && slices.Contains(files, e.File) {
		if i := g.IndexOf(e.File); i >= 0 {
			order := append(slices.Clone(g.Visible[i+1:]), reversed(g.Visible[:i])...)
			for _, e := range order {
				if !slices.Contains(files, e.File) && !g.pendingDel[e.File] {
					next = e.File
					break
				}
			}
		}
	}
	sh.BG.Add(1) // Close waits for the index write
	go func() {
		defer sh.BG.Done()
		batch, err := lib.Delete(files...)
		sh.Post(func() {
			for _, f := range files {
				delete(g.pendingDel, f)
			}
			if err != nil {
				sh.ShowError(fmt.Errorf("could not move to the trash: %w", err))
			}
			g.Refresh()
			if e, ok := g.View.ShownEntry(); ok && slices.Contains(files, e.File) && lib.IndexOf(e.File) < 0 {
				if next != "" && lib.IndexOf(next) >= 0 {
					g.SelectEntry(next, nil)
				} else {
					g.View.ClearShown()
				}
			}
			if batch == "" {
				return
			}
			msg := "Moved " + files[0] + " to the trash."
			if len(files) > 1 {
				msg = fmt.Sprintf("Moved %d images to the trash.", len(files))
			}
			g.showUndo(batch, msg)
			sh.SetStatus(msg)
		})
	}()
}

// Deleting reports whether file is being moved to the trash (its deletion has not ended).
func (g *View) Deleting(file string) bool { return g.pendingDel[file] }

func reversed(es []gallery.Entry) []gallery.Entry {
	out := slices.Clone(es)
	slices.Reverse(out)
	return out
}

// undoItem is a deletion that Undo can bring back: its trash batch and what the strip says.
type undoItem struct{ batch, msg string }

// maxUndos is how many deletions Undo remembers.
const maxUndos = 50

// showUndo offers to bring back the deletion batch, after the earlier ones.
func (g *View) showUndo(batch, msg string) {
	g.undos = append(g.undos, undoItem{batch, msg})
	if len(g.undos) > maxUndos {
		g.undos = g.undos[len(g.undos)-maxUndos:]
	}
	g.showUndoBar()
}

// showUndoBar shows the strip for the last deletion that can be undone, or hides it.
func (g *View) showUndoBar() {
	if len(g.undos) == 0 {
		g.undoBar.Hide()
	} else {
		last := g.undos[len(g.undos)-1]
		msg := last.msg
		if n := len(g.undos); n > 1 {
			msg += fmt.Sprintf(" (%d deletions can be undone)", n)
		}
		g.undoText.SetText(msg)
		g.undoBar.Show()
	}
	g.Root.Refresh() // the strip takes or gives back its room at the bottom
}

// hideUndo closes the strip; Ctrl+Z still undoes.
func (g *View) hideUndo() {
	g.undoBar.Hide()
	g.Root.Refresh()
}

// undo restores the last deletion not yet undone (off the UI goroutine) and shows a
// restored image; the strip then offers the one before it.
func (g *View) undo() {
	sh := g.sh
	if len(g.undos) == 0 || sh.Gallery == nil {
		return
	}
	batch := g.undos[len(g.undos)-1].batch
	g.undos = g.undos[:len(g.undos)-1]
	lib := sh.Gallery
	g.showUndoBar()
	sh.BG.Add(1) // Close waits for the index write
	go func() {
		defer sh.BG.Done()
		es, err := lib.Restore(batch)
		sh.Post(func() {
			if err != nil {
				sh.ShowError(fmt.Errorf("could not restore from the trash: %w", err))
			}
			g.Refresh()
			switch len(es) {
			case 0:
				return
			case 1:
				sh.SetStatus("Restored " + es[0].File)
			default:
				sh.SetStatus(fmt.Sprintf("Restored %d images.", len(es)))
			}
			g.SelectAndScroll(es[0].File)
		})
	}()
}

// DeleteEntry moves an image to the trash and offers Undo. It is the one way the UI deletes.
func (g *View) DeleteEntry(e gallery.Entry) { g.DeleteEntries([]gallery.Entry{e}) }

// DeleteShown moves the viewer's image to the trash.
func (g *View) DeleteShown() {
	if e, ok := g.View.ShownEntry(); ok {
		g.DeleteEntry(e)
	}
}
