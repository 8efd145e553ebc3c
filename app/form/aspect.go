package form

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/imagefile"
	"kleinbild/app/widgets"
	"kleinbild/engine"
)

// aspectRatios are the aspect menu's ratios (width:height).
var aspectRatios = []struct {
	label string
	w, h  int
}{
	{"1:1", 1, 1}, {"4:3", 4, 3}, {"3:2", 3, 2}, {"16:9", 16, 9},
	{"9:16", 9, 16}, {"2:3", 2, 3}, {"3:4", 3, 4},
}

// aspectSize is the size of aspect rw:rh closest in area to area pixels: sides multiples of
// engine.SizeMultiple within minSide..maxSide, the ratio kept as well as those allow.
func aspectSize(rw, rh, area int) (w, h int) {
	if rw <= 0 || rh <= 0 || area <= 0 {
		return 512, 512
	}
	fw := math.Sqrt(float64(area) * float64(rw) / float64(rh))
	return fitSides(fw, fw*float64(rh)/float64(rw))
}

// fitSides scales a size to fit minSide..maxSide on both sides, keeping its ratio where
// that is possible, and rounds each side to the nearest multiple of engine.SizeMultiple.
func fitSides(fw, fh float64) (w, h int) {
	if s := float64(maxSide) / max(fw, fh); s < 1 {
		fw, fh = fw*s, fh*s
	}
	if s := float64(minSide) / min(fw, fh); s > 1 {
		fw, fh = min(fw*s, maxSide), min(fh*s, maxSide)
	}
	round := func(v float64) int {
		m := float64(engine.SizeMultiple)
		return min(max(int(math.Round(v/m))*engine.SizeMultiple, minSide), maxSide)
	}
	return round(fw), round(fh)
}

// imageSizeFor is an image's size made a valid output size (fitSides): the size itself
// when it is one already.
func imageSizeFor(iw, ih int) (w, h int) { return fitSides(float64(iw), float64(ih)) }

// UseSizeTip is the tooltip of the "use the image's size" button.
const UseSizeTip = "Use the image's size: the first reference's, or else the viewed image's"

// buildAspect makes the aspect menu and the "use the image's size" button, the row under
// the size preset menu.
func (c *Controls) buildAspect() fyne.CanvasObject {
	var labels []string
	for _, r := range aspectRatios {
		labels = append(labels, r.label)
	}
	c.aspect = widget.NewSelect(labels, nil)
	c.aspect.PlaceHolder = "Aspect ratio"
	c.aspect.OnChanged = func(s string) {
		if s == "" || c.syncing {
			return
		}
		c.applyAspect(c.aspect.SelectedIndex())
	}
	use := widgets.NewTipButton(c.sh.Tips, theme.ViewFullScreenIcon(), UseSizeTip, c.useImageSize)
	use.Importance = widget.MediumImportance
	return container.NewBorder(nil, nil, nil, use, c.aspect)
}

// syncAspect shows the ratio of w×h in the aspect menu: the ratio whose size at this area
// is w×h, or one within 2 %; else none, and the placeholder gives the ratio. (Issue 36
// item 24: the menu never showed the current ratio.)
func (c *Controls) syncAspect(w, h int, ok bool) {
	if c.aspect == nil {
		return
	}
	sel, place := -1, "Aspect ratio"
	if ok {
		place = fmt.Sprintf("Other (%.2f:1)", float64(w)/float64(h))
		for i, r := range aspectRatios {
			aw, ah := aspectSize(r.w, r.h, w*h)
			if aw == w && ah == h || math.Abs(float64(w*r.h)/float64(h*r.w)-1) < 0.02 {
				sel = i
				break
			}
		}
	}
	c.aspect.PlaceHolder = place
	if sel == c.aspect.SelectedIndex() {
		c.aspect.Refresh()
		return
	}
	c.syncing = true
	defer func() { c.syncing = false }()
	if sel < 0 {
		c.aspect.ClearSelected()
	} else {
		c.aspect.SetSelectedIndex(sel)
	}
}

// applyAspect sets the size to aspect ratio i at about the current area (512² when the
// fields hold no valid size).
func (c *Controls) applyAspect(i int) {
	if i < 0 || i >= len(aspectRatios) {
		return
	}
	area := 512 * 512
	if w, msg := parseSide("Width", c.Width.Text); msg == "" {
		if h, msg := parseSide("Height", c.Height.Text); msg == "" {
			area = w * h
		}
	}
	r := aspectRatios[i]
	c.SetSize(aspectSize(r.w, r.h, area))
}

// useImageSize sets the size to the first reference's, or else to the viewed gallery
// image's, made a valid output size; it says where the size came from.
func (c *Controls) useImageSize() {
	path, what, err := c.sizeSource()
	if err == nil {
		var iw, ih int
		if iw, ih, err = imagefile.Size(path); err == nil {
			w, h := imageSizeFor(iw, ih)
			c.SetSize(w, h)
			msg := fmt.Sprintf("Size set from %s %s: %d × %d.", what, filepath.Base(path), w, h)
			if w != iw || h != ih {
				msg = fmt.Sprintf("Size set from %s %s (%d × %d): %d × %d, the nearest size Kleinbild makes.", what, filepath.Base(path), iw, ih, w, h)
			}
			c.sh.SetStatus(msg)
			return
		}
	}
	c.sh.SetStatus("No size taken: " + err.Error())
}

// sizeSource is the image "use the image's size" reads: the first reference, or else the
// gallery image in the viewer.
func (c *Controls) sizeSource() (path, what string, err error) {
	if refs := c.Refs.RefPaths(); len(refs) > 0 {
		return refs[0], "the reference", nil
	}
	if e, ok := c.Shown(); ok && c.sh.Gallery != nil {
		return c.sh.Gallery.Path(e), "the image", nil
	}
	return "", "", errors.New("add a reference image or pick an image in the gallery first")
}
