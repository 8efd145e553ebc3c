package download

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// checkContained refuses to write rel (a slash-separated listing path) under dir when a
// folder on the way already exists as something other than a real folder: a symlinked
// subfolder (dir/tokenizer → elsewhere) would let a listing drop files outside dir. dir
// itself may be a link (the user chose it); missing folders are fine (they are created).
func checkContained(dir, rel string) error {
	parts := strings.Split(rel, "/")
	p := dir
	for _, name := range parts[:len(parts)-1] {
		p = filepath.Join(p, name)
		st, err := os.Lstat(p)
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link: refusing to write %s through it (remove the link and run the download again)", p, rel)
		}
		if !st.IsDir() {
			return fmt.Errorf("%s is not a folder: cannot write %s", p, rel)
		}
	}
	return nil
}
