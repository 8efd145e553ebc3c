package inputs

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"kleinbild/app/settings"
	"kleinbild/engine/imageio"
	"kleinbild/engine/lora"
)

// ApplySettings brings back the remembered adapters (read off the UI goroutine) and the
// LoRA folder. Files that cannot be read any more are named under the list. The channel
// is closed once the list is back.
func (s *Adapters) ApplySettings(set settings.Settings) <-chan struct{} {
	s.folder.setDir(set.LoraDir)
	done := make(chan struct{})
	if len(set.Adapters) == 0 {
		close(done)
		return done
	}
	want := set.Adapters
	sh := s.sh
	sh.BG.Add(1)
	go func() {
		defer sh.BG.Done()
		loaded := make([]*lora.Adapter, len(want))
		var errs []error
		for i, w := range want {
			a, err := lora.Open(w.Path)
			if err != nil {
				errs = append(errs, fmt.Errorf("the adapter %s could not be loaded again: %w", filepath.Base(w.Path), err))
				continue
			}
			loaded[i] = a
		}
		sh.Post(func() {
			defer close(done)
			for i, a := range loaded {
				if a != nil {
					s.add(a, want[i], false)
				}
			}
			s.showErr(errors.Join(errs...))
		})
	}()
	return done
}

// RestoreFromImage makes the adapters those an image was made with (its metadata): each is
// looked up by its SHA-256 among the LoRA folder's files (hashed off the UI goroutine when
// the folder's scan has not done so) and the list's. Found ones are switched on at their
// strengths, the list's others off; the missing ones are named. An image made without adapters switches the list's off. The
// channel is closed once the result is applied.
func (s *Adapters) RestoreFromImage(want []imageio.Adapter) <-chan struct{} {
	done := make(chan struct{})
	sh := s.sh
	if len(want) == 0 {
		n := 0
		for _, e := range s.entries {
			if e.on.Checked {
				e.on.SetChecked(false)
				n++
			}
		}
		if n > 0 {
			s.changed()
			sh.ShowNotice(fmt.Sprintf("The image was made without adapters, so your %d adapter(s) were switched off.", n))
		}
		close(done)
		return done
	}
	dir, known := s.folder.dir, s.folder.hashes()
	var listed []string // the list's own files count too
	for _, e := range s.entries {
		listed = append(listed, e.a.Path)
	}
	sh.BG.Add(1)
	go func() {
		defer sh.BG.Done()
		byHash := map[string]string{}
		if known == nil && dir != "" {
			known = hashFolder(sh.Life, dir)
		}
		for h, p := range known {
			byHash[h] = p
		}
		for _, p := range listed {
			if h, err := imageio.SHA256File(p); err == nil {
				byHash[h] = p
			}
		}
		var found []*lora.Adapter
		var strengths []float32
		var missing []string
		var errs []error
		for _, w := range want {
			path, ok := byHash[strings.ToLower(w.SHA256)]
			if !ok {
				missing = append(missing, w.File)
				continue
			}
			a, err := lora.Open(path)
			if err != nil {
				errs = append(errs, fmt.Errorf("the adapter %s could not be loaded: %w", filepath.Base(path), err))
				continue
			}
			found, strengths = append(found, a), append(strengths, w.Strength)
		}
		sh.Post(func() {
			defer close(done)
			s.UseOnly(found, strengths)
			s.tellRestored(len(found), missing, dir, errs)
		})
	}()
	return done
}

// UseOnly switches on found at strengths (adding those not listed yet) and switches every
// other adapter of the list off; none is removed.
func (s *Adapters) UseOnly(found []*lora.Adapter, strengths []float32) {
	byPath := map[string]*adapterEntry{}
	for _, e := range s.entries {
		byPath[e.a.Path] = e
		e.on.SetChecked(false)
	}
	for i, a := range found {
		st := float64(strengths[i])
		if !(math.Abs(st) <= lora.MaxStrength) { // NaN too
			st = 1
		}
		e := byPath[a.Path]
		if e == nil {
			s.add(a, settings.Adapter{Path: a.Path, Strength: st}, true)
			continue
		}
		s.setStrength(e, st)
		e.on.SetChecked(true) // asks first where the match is partial (switched)
	}
	s.changed()
}

// tellRestored says how the restore of n adapters went.
func (s *Adapters) tellRestored(n int, missing []string, dir string, errs []error) {
	var notes []string
	if len(missing) > 0 {
		where := "in your LoRA folder " + dir
		if dir == "" {
			where = "because no LoRA folder is set (choose one under Adapters)"
		}
		notes = append(notes, fmt.Sprintf("%d adapter(s) the image was made with were not found %s: %s", len(missing), where, strings.Join(missing, ", ")))
	}
	for _, err := range errs {
		notes = append(notes, err.Error())
	}
	if len(notes) > 0 {
		msg := strings.Join(notes, "; ") + "."
		s.showErr(errors.New(msg))
		s.sh.ShowNotice(fmt.Sprintf("Restored %d adapter(s), but %s", n, msg))
		return
	}
	s.showErr(nil)
	s.sh.SetStatus(fmt.Sprintf("Settings restored with %d adapter(s).", n))
}

// hashFolder maps the SHA-256 of every adapter file in dir to its path (any goroutine).
func hashFolder(ctx context.Context, dir string) map[string]string {
	out := map[string]string{}
	for _, it := range scanFolder(ctx, dir, false) {
		if it.sha256 != "" {
			out[it.sha256] = it.path
		}
	}
	return out
}
