// Package imageclip puts images on the system clipboard, which Fyne's clipboard (text
// only) cannot.
package imageclip

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"sync"

	"golang.design/x/clipboard"

	"kleinbild/app/thumbcache"
)

// Clipboard puts images on the system clipboard (Fyne's clipboard holds only
// text). It connects on first use; where there is no clipboard to connect to (no
// display, a build without cgo) writes fail with a plain message.
type Clipboard struct {
	once sync.Once
	err  error
}

// WritePNG puts PNG data on the clipboard. Safe from any goroutine.
func (c *Clipboard) WritePNG(data []byte) error {
	c.once.Do(func() {
		if err := clipboard.Init(); err != nil {
			c.err = fmt.Errorf("the system clipboard cannot be used here (%w)", err)
		}
	})
	if c.err != nil {
		return c.err
	}
	if clipboard.Write(clipboard.FmtImage, data) == nil {
		return errors.New("the system clipboard did not take the image")
	}
	return nil
}

// FileAsPNG decodes the image file at path and encodes it as PNG.
func FileAsPNG(path string) ([]byte, error) {
	img, err := thumbcache.DecodeFile(path)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encoding the image: %w", err)
	}
	return buf.Bytes(), nil
}
