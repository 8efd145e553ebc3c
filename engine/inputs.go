package engine

import (
	"os"
	"path/filepath"
)

// maxModelFiles bounds the files ModelFiles lists (a model folder holds a few dozen).
const maxModelFiles = 10000

// ModelFiles lists the files a run may read from the model folder dir: the files in dir and
// in its subfolders one level down (links followed), at most maxModelFiles of them. Output
// checks (atomicfile.CheckOutput) compare against it so a run never writes over its model.
func ModelFiles(dir string) []string {
	if dir == "" {
		return nil
	}
	var files []string
	var walk func(d string, depth int)
	walk = func(d string, depth int) {
		entries, err := os.ReadDir(d)
		if err != nil {
			return
		}
		for _, e := range entries {
			if len(files) >= maxModelFiles {
				return
			}
			p := filepath.Join(d, e.Name())
			st, err := os.Stat(p)
			switch {
			case err != nil:
			case st.Mode().IsRegular():
				files = append(files, p)
			case st.IsDir() && depth > 0:
				walk(p, depth-1)
			}
		}
	}
	walk(dir, 1)
	return files
}
