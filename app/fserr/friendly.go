// Package fserr says file system errors in plain words, for messages to the user.
package fserr

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// Friendly is err's message with a missing file or folder said in plain words: "model:
// stat /x: no such file or directory" becomes "model: /x does not exist (moved, renamed
// or deleted?)" (issue 28 item 10).
func Friendly(err error) string {
	msg := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) && errors.Is(pe.Err, fs.ErrNotExist) && pe.Path != "" {
		return strings.Replace(msg, pe.Error(), fmt.Sprintf("%s does not exist (moved, renamed or deleted?)", pe.Path), 1)
	}
	return msg
}
