//go:build ignore

// checkpng verifies that a screenshot is a real, non-blank image of at least the expected
// size: go run .ci/checkpng.go FILE MIN_WIDTH MIN_HEIGHT
package main

import (
	"fmt"
	"image"
	_ "image/png"
	"os"
	"strconv"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: checkpng FILE MIN_WIDTH MIN_HEIGHT")
		os.Exit(2)
	}
	minW, _ := strconv.Atoi(os.Args[2])
	minH, _ := strconv.Atoi(os.Args[3])
	f, err := os.Open(os.Args[1])
	if err != nil {
		fail(err)
	}
	img, _, err := image.Decode(f)
	if err != nil {
		fail(fmt.Errorf("%s: %w", os.Args[1], err))
	}
	b := img.Bounds()
	if b.Dx() < minW || b.Dy() < minH {
		fail(fmt.Errorf("%s is %dx%d, want at least %dx%d", os.Args[1], b.Dx(), b.Dy(), minW, minH))
	}
	colors := map[[3]uint32]bool{}
	var sum, sum2 float64
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colors[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
			l := float64(r+g+bl) / 3 / 257
			sum += l
			sum2 += l * l
			n++
		}
	}
	mean := sum / float64(n)
	variance := sum2/float64(n) - mean*mean
	if len(colors) < 64 || variance < 25 {
		fail(fmt.Errorf("%s looks blank: %d distinct colours, luminance variance %.1f", os.Args[1], len(colors), variance))
	}
	fmt.Printf("%s: %dx%d, %d distinct colours, luminance mean %.0f variance %.0f: ok\n", os.Args[1], b.Dx(), b.Dy(), len(colors), mean, variance)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "checkpng:", err)
	os.Exit(1)
}
