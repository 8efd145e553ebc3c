package modelui

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"

	"kleinbild/app/userdirs"
	"kleinbild/engine"
	"kleinbild/engine/source"
	"kleinbild/weights/assemble"
)

// IsWeightFile reports whether p names a GGUF or safetensors file.
func IsWeightFile(p string) bool {
	ext := strings.ToLower(filepath.Ext(p))
	return ext == ".gguf" || ext == ".safetensors"
}

// isModelFolder reports whether p is a diffusers model folder or a ComfyUI models folder.
func isModelFolder(p string) bool {
	k := source.Kind(p)
	return k == source.KindDiffusers || k == source.KindComfy
}

// weightFilePart tells which part of a model a GGUF or safetensors file holds, from its
// header (nothing is loaded).
func weightFilePart(p string) (engine.Component, error) {
	if c, err := assemble.DescribeTransformer(p); err == nil {
		c.Close()
		return engine.Transformer, nil
	}
	if c, err := assemble.DescribeTextEncoder(p); err == nil {
		c.Close()
		return engine.TextEncoder, nil
	}
	if c, err := assemble.DescribeVAE(p, 0); err == nil {
		c.Close()
		return engine.VAE, nil
	}
	return "", fmt.Errorf("%s is not a FLUX.2 transformer, Qwen3 text encoder or FLUX.2 VAE file Kleinbild can read", filepath.Base(p))
}

// takeDrop takes files dropped on the window that are the model's business: everything
// while the model dialog is open, and otherwise model folders and GGUF or safetensors
// files, which open the dialog with them. It reports whether it took the drop (UI goroutine).
func (m *Model) TakeDrop(uris []fyne.URI) bool {
	var paths []string
	for _, u := range uris {
		if u.Scheme() != "file" {
			return false
		}
		paths = append(paths, u.Path())
	}
	if len(paths) == 0 {
		return false
	}
	if m.Form == nil {
		for _, p := range paths {
			if !IsWeightFile(p) && !isModelFolder(p) {
				return false
			}
		}
		m.ShowDialog()
	}
	m.Form.drop(paths)
	return true
}

// droppedPart is a dropped path and what it is: a folder ("") or a part's file.
type droppedPart struct {
	path string
	part engine.Component
}

// drop puts dropped folders and files into the form: a folder (or a transformer file while
// the model is no folder) becomes the model, other files replace their part. Files are told
// apart by their headers, off the UI goroutine.
func (f *modelForm) drop(paths []string) {
	sh := f.m.sh
	sh.BG.Add(1)
	go func() {
		defer sh.BG.Done()
		var got []droppedPart
		var errs []error
		for _, p := range paths {
			if userdirs.IsDir(p) {
				got = append(got, droppedPart{path: p})
				continue
			}
			c, err := weightFilePart(p)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			got = append(got, droppedPart{path: p, part: c})
		}
		sh.Post(func() {
			if f.m.Form != f {
				return
			}
			for _, d := range got {
				switch {
				case d.part == "":
					f.Path.SetText(d.path)
				case d.part == engine.Transformer && !userdirs.IsDir(CleanDir(f.Path.Text)):
					f.Path.SetText(d.path)
				default:
					f.parts[d.part].SetText(d.path)
				}
			}
			sh.ShowError(errors.Join(errs...))
		})
	}()
}
