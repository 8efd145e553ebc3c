// Command mkicon draws Kleinbild's application icon: a rounded square in an indigo-to-pink
// gradient holding a small framed picture (sky, sun, mountains) and two sparkles. The shapes
// are signed-distance functions sampled 4×4 per pixel, so the result is anti-aliased and
// byte-for-byte reproducible. Run through `go generate` in package resources.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
)

func main() {
	out := flag.String("o", "icon.png", "output PNG")
	size := flag.Int("size", 512, "icon side in pixels")
	flag.Parse()
	if err := write(*out, draw(*size)); err != nil {
		fmt.Fprintln(os.Stderr, "mkicon:", err)
		os.Exit(1)
	}
}

func write(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(w, img); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// rgba is a premultiplied colour in [0, 1].
type rgba struct{ r, g, b, a float64 }

func solid(hex uint32, alpha float64) rgba {
	return rgba{float64(hex>>16&255) / 255 * alpha, float64(hex>>8&255) / 255 * alpha, float64(hex&255) / 255 * alpha, alpha}
}

// over composites c (with extra coverage k) over dst.
func over(dst, c rgba, k float64) rgba {
	c = rgba{c.r * k, c.g * k, c.b * k, c.a * k}
	return rgba{c.r + dst.r*(1-c.a), c.g + dst.g*(1-c.a), c.b + dst.b*(1-c.a), c.a + dst.a*(1-c.a)}
}

func mix(a, b rgba, t float64) rgba {
	t = math.Max(0, math.Min(1, t))
	return rgba{a.r + (b.r-a.r)*t, a.g + (b.g-a.g)*t, a.b + (b.b-a.b)*t, a.a + (b.a-a.a)*t}
}

func smoothstep(e0, e1, x float64) float64 {
	t := math.Max(0, math.Min(1, (x-e0)/(e1-e0)))
	return t * t * (3 - 2*t)
}

// roundRect is the signed distance to a rounded rectangle centred at (cx, cy).
func roundRect(x, y, cx, cy, hw, hh, r float64) float64 {
	qx, qy := math.Abs(x-cx)-hw+r, math.Abs(y-cy)-hh+r
	return math.Hypot(math.Max(qx, 0), math.Max(qy, 0)) + math.Min(math.Max(qx, qy), 0) - r
}

func circle(x, y, cx, cy, r float64) float64 { return math.Hypot(x-cx, y-cy) - r }

// insideSparkle reports whether (x, y) lies in a four-pointed star (an astroid) of radius r.
func insideSparkle(x, y, cx, cy, r float64) bool {
	dx, dy := math.Abs(x-cx)/r, math.Abs(y-cy)/r
	return math.Pow(dx, 2.0/3)+math.Pow(dy, 2.0/3) <= 1
}

// underPeak reports whether (x, y) lies below the slopes of a mountain whose summit is at
// (px, py) and whose flanks reach baseY at px ± halfWidth.
func underPeak(x, y, px, py, baseY, halfWidth float64) bool {
	return y >= py+(baseY-py)*math.Abs(x-px)/halfWidth
}

// shade returns the icon colour at one sample point, in a 512-unit design space.
func shade(x, y float64) rgba {
	var c rgba
	// Soft shadow of the body.
	if d := roundRect(x, y+10, 256, 256, 216, 216, 96); d < 24 {
		c = over(c, solid(0x1e1b4b, 0.35), 1-smoothstep(-16, 24, d))
	}
	body := roundRect(x, y, 256, 256, 216, 216, 96)
	if body > 0 {
		return c
	}
	t := (x + y - 80) / (2 * 432)
	bg := mix(solid(0x4338ca, 1), solid(0xdb2777, 1), t)
	bg = mix(bg, solid(0xf97316, 1), smoothstep(0.75, 1.2, t)*0.6)
	c = over(c, bg, 1)
	// Gentle light from the top.
	c = over(c, solid(0xffffff, 0.10), 1-smoothstep(40, 300, y))

	// The picture card, with its shadow.
	const cx, cy, hw, hh = 248.0, 282.0, 150.0, 118.0
	if d := roundRect(x, y-12, cx, cy, hw, hh, 30); d < 20 {
		c = over(c, solid(0x1e1b4b, 0.30), 1-smoothstep(-12, 20, d))
	}
	if roundRect(x, y, cx, cy, hw, hh, 30) <= 0 {
		c = over(c, solid(0xffffff, 1), 1)
	}
	if roundRect(x, y, cx, cy, hw-20, hh-20, 14) <= 0 {
		// Sky.
		sky := mix(solid(0xfde68a, 1), solid(0xfbcfe8, 1), (y-(cy-hh+20))/(2*(hh-20)))
		c = over(c, sky, 1)
		if circle(x, y, cx+52, cy-38, 30) <= 0 {
			c = over(c, solid(0xf59e0b, 1), 1)
		}
		if underPeak(x, y, cx+60, cy-10, cy+98, 120) {
			c = over(c, solid(0x8b5cf6, 1), 1)
		}
		if underPeak(x, y, cx-50, cy-44, cy+98, 150) {
			c = over(c, solid(0x4338ca, 1), 1)
		}
	}
	// Sparkles.
	if insideSparkle(x, y, 388, 138, 62) {
		c = over(c, solid(0xffffff, 1), 1)
	}
	if insideSparkle(x, y, 430, 214, 26) {
		c = over(c, solid(0xffffff, 0.9), 1)
	}
	return c
}

func draw(size int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	const ss = 4
	scale := 512 / float64(size)
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			var acc rgba
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					x := (float64(px) + (float64(sx)+0.5)/ss) * scale
					y := (float64(py) + (float64(sy)+0.5)/ss) * scale
					s := shade(x, y)
					acc = rgba{acc.r + s.r, acc.g + s.g, acc.b + s.b, acc.a + s.a}
				}
			}
			n := float64(ss * ss)
			a := acc.a / n
			if a <= 0 {
				continue
			}
			img.SetNRGBA(px, py, color.NRGBA{
				R: uint8(math.Round(math.Min(1, acc.r/n/a) * 255)),
				G: uint8(math.Round(math.Min(1, acc.g/n/a) * 255)),
				B: uint8(math.Round(math.Min(1, acc.b/n/a) * 255)),
				A: uint8(math.Round(a * 255)),
			})
		}
	}
	return img
}
