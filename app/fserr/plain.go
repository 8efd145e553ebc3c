package fserr

import (
	"errors"
	"io/fs"
)

// Plain names common file system errors in plain words: "no such file or folder",
// "permission denied"; other errors are returned as they are.
func Plain(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("no such file or folder")
	case errors.Is(err, fs.ErrPermission):
		return errors.New("permission denied")
	}
	return err
}
