// Command biggallery fills a Kleinbild data folder with many small PNGs that carry
// Kleinbild metadata, to check the gallery with thousands of images in a real window
// (issue 22: thumbnails must fill without moving the pointer). Every tenth image is a
// one-pixel checkerboard with a red diagonal, to check zoom at 200 % or more; the others
// are colour ramps. It writes the PNGs, then opens the gallery once so that its index is
// built, as it would be after a run. Usage:
//
//	go run ./testdata/biggallery -data /tmp/kb-data -n 5000
//	kleinbild gui --data /tmp/kb-data
package main

import (
	"context"
	"flag"
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"time"

	"kleinbild/app/gallery"
	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
)

func main() {
	data := flag.String("data", "", "data folder to fill (its gallery/ subfolder gets the images)")
	n := flag.Int("n", 5000, "number of images")
	size := flag.Int("size", 128, "image width and height in pixels")
	flag.Parse()
	if *data == "" || *n < 1 || *size < 8 {
		fmt.Fprintln(os.Stderr, "usage: biggallery -data DIR [-n 5000] [-size 128]")
		os.Exit(2)
	}
	if err := fill(filepath.Join(*data, "gallery"), *n, *size); err != nil {
		fmt.Fprintln(os.Stderr, "biggallery:", err)
		os.Exit(1)
	}
}

// fill writes n images of size² pixels into dir and builds the gallery index.
func fill(dir string, n, size int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for i := range n {
		created := start.Add(time.Duration(i) * time.Minute)
		meta := imageio.Metadata{
			Settings: schema.Settings{Prompt: fmt.Sprintf("test image %d", i), Seed: uint64(i), Width: size, Height: size, Steps: 4, Guidance: 1},
			Model:    "biggallery",
			Variant:  "distilled",
			Software: "testdata/biggallery",
			Created:  created,
			Duration: time.Second,
		}
		name := fmt.Sprintf("kleinbild-%s-%d.png", created.Format("20060102-150405"), i)
		if err := imageio.WritePNG(filepath.Join(dir, name), picture(i, size), meta); err != nil {
			return fmt.Errorf("image %d: %w", i, err)
		}
	}
	g, rep, err := gallery.Open(context.Background(), dir, gallery.Options{})
	if err != nil {
		return fmt.Errorf("open the gallery: %w", err)
	}
	fmt.Printf("%d images in %s (index rebuilt: %v)\n", g.Len(), dir, rep.Rebuilt)
	return nil
}

// picture is image i: a checkerboard with a red diagonal for every tenth image (the
// newest one included), else a colour ramp whose hue follows i.
func picture(i, size int) image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for y := range size {
		for x := range size {
			var c color.NRGBA
			switch {
			case i%10 == 9 && x == y:
				c = color.NRGBA{255, 0, 0, 255}
			case i%10 == 9 && (x+y)%2 == 0:
				c = color.NRGBA{255, 255, 255, 255}
			case i%10 == 9:
				c = color.NRGBA{0, 0, 0, 255}
			default:
				c = color.NRGBA{uint8(i * 37), uint8(x * 255 / size), uint8(y * 255 / size), 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}
