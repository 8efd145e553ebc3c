package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// checkDumpDir refuses, before any work, a --dump folder that would take the run's inputs or
// a model's files: one inside the model folder modelDir or a model folder itself (it holds
// model_index.json or a component's config.json), and one where a file --dump writes
// (NAME.safetensors, image.png) is, after links, a file the run reads (reads). A folder
// that does not exist yet is fine: dumpWriter creates it.
func checkDumpDir(dir, modelDir string, reads []string) error {
	if dir == "" {
		return nil
	}
	if modelDir != "" && within(dir, modelDir) {
		return usageErr("--dump %s is inside the model folder %s: choose a folder of its own", dir, modelDir)
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("dump folder: %w", err)
	case !st.IsDir():
		return usageErr("--dump %s is not a folder", dir)
	}
	for _, marker := range []string{"model_index.json", "config.json", filepath.Join("..", "model_index.json")} {
		if _, err := os.Stat(filepath.Join(dir, marker)); err == nil {
			return usageErr("--dump %s is part of a model folder (it has %s): choose a folder of its own", dir, filepath.Clean(marker))
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("dump folder: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".safetensors") && name != "image.png" {
			continue
		}
		out := filepath.Join(dir, name)
		ost, err := os.Stat(out)
		if err != nil {
			continue
		}
		for _, r := range reads {
			if rst, err := os.Stat(r); r != "" && err == nil && os.SameFile(ost, rst) {
				return usageErr("--dump %s holds %s, the file %s this run reads, which the dump would replace: choose another folder", dir, name, r)
			}
		}
	}
	return nil
}

// within reports whether path is root or inside it (after links where they resolve).
func within(path, root string) bool {
	abs := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		a, err := filepath.Abs(p)
		if err != nil {
			return filepath.Clean(p)
		}
		return a
	}
	rel, err := filepath.Rel(abs(root), abs(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
