package saveas

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"kleinbild/app/fserr"
	"kleinbild/internal/atomicfile"
	"kleinbild/internal/safefile"
)

// copyFile copies src to target through a temporary file in target's folder, so
// target is either the old file or the whole copy.
func copyFile(src, target string) error {
	err := atomicfile.WriteOutput(target, func(w *bufio.Writer) error {
		f, _, err := safefile.OpenRegular(src, 0)
		if err != nil {
			return fmt.Errorf("the image %s cannot be read: %w", filepath.Base(src), fserr.Plain(err))
		}
		defer f.Close()
		_, err = io.Copy(w, f)
		return err
	})
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("the copy could not be saved: Kleinbild may not write in the folder %s (permission denied)", filepath.Dir(target))
	}
	return fmt.Errorf("the copy could not be saved: %w", err)
}
