// A glance at a picture: a tiny grey thumbnail and how bright it is. Live mode compares
// thumbnails to send a frame only when the picture changed; a capture uses the brightness to say
// "too dark" instead of a silent bad reading. (Sharpness of so small a thumbnail says more about
// the table than about blur, so blur is told by the reader's unsure tiles instead.)

const W = 48, H = 36;
const canvas = document.createElement("canvas");
canvas.width = W;
canvas.height = H;

// source: a video, image, bitmap or canvas.
export function frameLook(source) {
  const ctx = canvas.getContext("2d", { willReadFrequently: true });
  ctx.drawImage(source, 0, 0, W, H);
  const pixels = ctx.getImageData(0, 0, W, H).data;
  const grey = new Float32Array(W * H);
  let sum = 0;
  for (let i = 0; i < grey.length; i++) {
    grey[i] = (pixels[4 * i] + pixels[4 * i + 1] + pixels[4 * i + 2]) / 3;
    sum += grey[i];
  }
  const mean = sum / grey.length;
  return { grey, mean, dark: mean < 45 };
}

// Mean absolute difference of two thumbnails, in grey levels, above `threshold`?
export function pictureChanged(a, b, threshold) {
  let sum = 0;
  for (let i = 0; i < a.grey.length; i++) sum += Math.abs(a.grey[i] - b.grey[i]);
  return sum / a.grey.length > threshold;
}
