package app

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// friendlyText is err's message with a missing file or folder said in plain words: "model:
// stat /x: no such file or directory" becomes "model: /x does not exist (moved, renamed
// or deleted?)" (issue 28 item 10).
func friendlyText(err error) string {
	msg := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) && errors.Is(pe.Err, fs.ErrNotExist) && pe.Path != "" {
		return strings.Replace(msg, pe.Error(), fmt.Sprintf("%s does not exist (moved, renamed or deleted?)", pe.Path), 1)
	}
	return msg
}
