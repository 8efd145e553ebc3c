package maskedit

import (
	"image"
	"image/color"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// testPicture is a 64×48 picture with a gradient.
func testPicture() *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, 64, 48))
	for y := 0; y < 48; y++ {
		for x := 0; x < 64; x++ {
			img.Set(x, y, color.NRGBA{uint8(4 * x), uint8(5 * y), 90, 255})
		}
	}
	return img
}

func masked(e *Editor) int {
	n := 0
	for _, v := range e.mask.Pix {
		if v >= 128 {
			n++
		}
	}
	return n
}

// editorWindow is a mask editor on the 64×48 test picture in a 128×96 window: 2 widget
// units a picture pixel.
func editorWindow(t *testing.T) (*Editor, fyne.Window) {
	t.Helper()
	test.NewTempApp(t)
	e := New(testPicture())
	w := test.NewTempWindow(t, e)
	w.SetPadded(false)
	w.Resize(fyne.NewSize(128, 96))
	e.Resize(fyne.NewSize(128, 96))
	return e, w
}

// TestMaskEditorStrokes: strokes through the test driver paint the mask where they go (the
// picture fitted 2× in the widget), the eraser removes paint, undo and redo step through
// the strokes, invert and clear work on the whole mask, and the overlay shows the mask.
func TestMaskEditorStrokes(t *testing.T) {
	e, w := editorWindow(t)
	e.Brush, e.Hardness = 8, 1

	// A dab at widget (20, 20) is picture pixel (10, 10).
	test.Drag(w.Canvas(), fyne.NewPos(20, 20), 10, 0)
	if e.mask.GrayAt(10, 10).Y != 255 || e.mask.GrayAt(40, 40).Y != 0 {
		t.Fatalf("dab: mask at (10,10) %d, at (40,40) %d", e.mask.GrayAt(10, 10).Y, e.mask.GrayAt(40, 40).Y)
	}
	one := masked(e)
	// The overlay tints the painted pixel red.
	if pic := e.view.Image.(*image.NRGBA); pic.NRGBAAt(10, 10).R <= testPicture().NRGBAAt(10, 10).R {
		t.Errorf("overlay at a painted pixel: %v", pic.NRGBAAt(10, 10))
	}

	// A stroke from (10,30) to (50,30) in picture pixels paints a line between.
	e.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(20, 60)}})
	e.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(100, 60)}})
	e.DragEnd()
	for _, x := range []int{10, 30, 50} {
		if e.mask.GrayAt(x, 30).Y != 255 {
			t.Errorf("stroke: mask at (%d,30) is %d", x, e.mask.GrayAt(x, 30).Y)
		}
	}
	two := masked(e)
	if two <= one {
		t.Fatalf("the stroke painted nothing (%d then %d pixels)", one, two)
	}

	e.Erase = true
	test.Drag(w.Canvas(), fyne.NewPos(60, 60), 1, 0)
	if e.mask.GrayAt(30, 30).Y != 0 {
		t.Errorf("eraser left %d at (30,30)", e.mask.GrayAt(30, 30).Y)
	}
	e.Erase = false

	e.Undo() // the eraser
	if masked(e) != two {
		t.Errorf("undo of the eraser: %d pixels, want %d", masked(e), two)
	}
	e.Undo() // the stroke
	if masked(e) != one {
		t.Errorf("undo of the stroke: %d pixels, want %d", masked(e), one)
	}
	e.Redo()
	if masked(e) != two {
		t.Errorf("redo: %d pixels, want %d", masked(e), two)
	}
	e.Invert()
	if masked(e) != 64*48-two {
		t.Errorf("invert: %d pixels, want %d", masked(e), 64*48-two)
	}
	e.Clear()
	if e.Masked() {
		t.Error("clear left paint")
	}
	e.Undo()
	if masked(e) != 64*48-two {
		t.Errorf("undo of clear: %d pixels", masked(e))
	}
}

// TestMaskEditorZoomPan: scrolling zooms about the pointer, painting keeps working on the
// zoomed view (a tap paints the picture pixel under it), pan mode moves the view instead of
// painting, and zoom 1 shows the whole picture again.
func TestMaskEditorZoomPan(t *testing.T) {
	e, _ := editorWindow(t)
	e.Brush, e.Hardness = 1, 1

	// Zoom 4× about widget (32, 24) = picture (16, 12): that point stays under the pointer.
	e.SetZoom(4, 16, 12)
	if v := e.view.Image.Bounds(); v.Dx() != 16 || v.Dy() != 12 {
		t.Fatalf("visible part at zoom 4: %v", v)
	}
	if x, y := e.toPictureF(fyne.NewPos(32, 24)); x < 15 || x > 17 || y < 11 || y > 13 {
		t.Errorf("zoom moved the point under the pointer to (%.1f, %.1f)", x, y)
	}
	p := e.toPicture(fyne.NewPos(64, 48))
	e.Tapped(&fyne.PointEvent{Position: fyne.NewPos(64, 48)})
	if e.mask.GrayAt(p.X, p.Y).Y != 255 || masked(e) > 4 {
		t.Errorf("tap at zoom 4 painted %d pixels, (%d,%d) = %d", masked(e), p.X, p.Y, e.mask.GrayAt(p.X, p.Y).Y)
	}
	before := e.visible()
	e.Pan = true
	n := masked(e)
	e.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(64, 48)}, Dragged: fyne.Delta{DX: -32}})
	e.DragEnd()
	if after := e.visible(); after.Min.X != before.Min.X+4 || masked(e) != n {
		t.Errorf("pan by 32 px at 8 px a pixel: view %v -> %v, %d masked (was %d)", before, after, masked(e), n)
	}
	e.Pan = false
	e.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(10, 10)}, Scrolled: fyne.Delta{DY: -1000}})
	if e.zoom != 1 || e.view.Image.Bounds() != image.Rect(0, 0, 64, 48) {
		t.Errorf("zoomed out: zoom %v, visible %v", e.zoom, e.view.Image.Bounds())
	}
}

// TestMaskRectangleTool: with the rectangle tool a drag fills the rectangle from where the
// pointer was pressed to where it is (the preview follows the pointer without leaving
// earlier corners painted), the eraser clears one, each drag is one Undo step, and a tap
// paints nothing.
func TestMaskRectangleTool(t *testing.T) {
	e, _ := editorWindow(t)
	e.Rect = true
	drag := func(from fyne.Position, to ...fyne.Position) {
		prev := from
		for _, p := range to { // as the driver reports it: the pointer and its move
			e.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: p}, Dragged: fyne.NewDelta(p.X-prev.X, p.Y-prev.Y)})
			prev = p
		}
		e.DragEnd()
	}
	drag(fyne.NewPos(20, 20), fyne.NewPos(100, 90), fyne.NewPos(60, 40)) // picture (10,10)..(30,20)
	if n := masked(e); n != 21*11 {
		t.Fatalf("rectangle (10,10)-(30,20): %d masked pixels, want %d", n, 21*11)
	}
	if e.mask.GrayAt(10, 10).Y != 255 || e.mask.GrayAt(30, 20).Y != 255 || e.mask.GrayAt(31, 20).Y != 0 || e.mask.GrayAt(40, 40).Y != 0 {
		t.Error("the rectangle is not where the drag went")
	}
	e.Erase = true
	drag(fyne.NewPos(40, 40), fyne.NewPos(30, 30)) // picture (15,15)..(20,20), backwards
	if n := masked(e); n != 21*11-6*6 || e.mask.GrayAt(17, 17).Y != 0 {
		t.Errorf("erased rectangle: %d masked pixels, want %d", masked(e), 21*11-6*6)
	}
	e.Erase = false
	e.Tapped(&fyne.PointEvent{Position: fyne.NewPos(120, 90)})
	e.Undo()
	if n := masked(e); n != 21*11 {
		t.Errorf("undo of the erased rectangle: %d masked pixels", n)
	}
	e.Undo()
	if e.Masked() {
		t.Error("undo of the rectangle left paint")
	}
}
