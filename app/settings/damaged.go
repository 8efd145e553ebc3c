package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"kleinbild/internal/safefile"
)

// UnreadableSuffix is added to the name of a settings file that could not be read, kept
// aside (as the queue's file is).
const UnreadableSuffix = ".unreadable"

// maxAside bounds the numbered names tried for a file kept aside.
const maxAside = 100

// LoadKeepingDamaged is Load for the one who writes the file next: a settings file that
// holds no settings (a typo such as a trailing comma, cut short, too large) is kept aside as
// path+".unreadable" (numbered when that name is taken), so that the first save does not
// replace the model folder, prompt, LoRA folder and adapters it holds by the defaults (issue
// 37 item 3). It gives zero settings and an error, for the banner, that says where the file
// went. Other errors are Load's.
func LoadKeepingDamaged(path string) (Settings, error) {
	s, err := Load(path)
	if err == nil || !damaged(err) {
		return s, err
	}
	cause := errors.Unwrap(err)
	if cause == nil {
		cause = err
	}
	aside, rerr := keepAside(path)
	if rerr != nil {
		return Settings{}, fmt.Errorf("the settings file %s cannot be read (%v) nor kept aside (%v): the defaults are used, and it is replaced at the next change", path, cause, rerr)
	}
	return Settings{}, fmt.Errorf("the settings file cannot be read (%v), so it was kept aside as %s and the defaults are used: mend it and move it back while Kleinbild is closed", cause, aside)
}

// damaged reports whether Load's err means the file holds no settings (rather than that it
// could not be read at all).
func damaged(err error) bool {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	return errors.As(err, &syntax) || errors.As(err, &typ) || errors.Is(err, safefile.ErrTooLarge)
}

// keepAside renames path to path+UnreadableSuffix, or to a numbered name where an earlier
// damaged file was kept, and returns the new name.
func keepAside(path string) (string, error) {
	for i := 1; i <= maxAside; i++ {
		aside := path + UnreadableSuffix
		if i > 1 {
			aside += "-" + strconv.Itoa(i)
		}
		if _, err := os.Lstat(aside); !errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err := os.Rename(path, aside); err != nil {
			return "", err
		}
		return aside, nil
	}
	return "", fmt.Errorf("%d files named %s%s* are there already", maxAside, filepath.Base(path), UnreadableSuffix)
}
