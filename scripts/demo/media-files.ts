// Small image and sound files for the demo's cards, made here rather than kept
// in the repository: PNG pictures of colours and flags, WAV tones of notes.
import { crc32, deflateSync } from 'node:zlib'

type Colour = readonly [number, number, number]

function chunk (type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(typed))
  return Buffer.concat([length, typed, crc])
}

/** A PNG of `width` x `height` pixels, each coloured by `colourAt`. */
function png (width: number, height: number, colourAt: (x: number, y: number) => Colour): Buffer {
  const rows: Buffer[] = []
  for (let y = 0; y < height; y += 1) {
    const row = Buffer.alloc(1 + width * 3)
    for (let x = 0; x < width; x += 1) {
      const [r, g, b] = colourAt(x, y)
      row.writeUInt8(r, 1 + x * 3)
      row.writeUInt8(g, 2 + x * 3)
      row.writeUInt8(b, 3 + x * 3)
    }
    rows.push(row)
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.writeUInt8(8, 8) // bits per channel
  header.writeUInt8(2, 9) // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0))
  ])
}

function hex (colour: string): Colour {
  const value = Number.parseInt(colour.slice(1), 16)
  return [value >> 16, (value >> 8) & 0xff, value & 0xff]
}

const FRAME: Colour = [120, 120, 120]

/** A swatch of one colour in a thin grey frame, as a colour chart shows it. */
export function swatch (colour: Colour): Buffer {
  const [width, height] = [240, 160]
  return png(width, height, (x, y) => x < 2 || y < 2 || x >= width - 2 || y >= height - 2 ? FRAME : colour)
}

/** A flag of three equal stripes, 3:2, with a thin grey edge so that white stripes show on a white card. */
export function flag (stripes: readonly [string, string, string], direction: 'vertical' | 'horizontal'): Buffer {
  const [width, height] = [300, 200]
  const colours = stripes.map(hex)
  return png(width, height, (x, y) => {
    if (x === 0 || y === 0 || x === width - 1 || y === height - 1) return FRAME
    const stripe = direction === 'vertical' ? Math.floor(3 * x / width) : Math.floor(3 * y / height)
    return colours[stripe] as Colour
  })
}

/** A WAV of a note: `frequency` Hz for a second, fading out, 8 kHz 16-bit mono PCM. */
export function tone (frequency: number): Buffer {
  const rate = 8000
  const samples = rate
  const data = Buffer.alloc(samples * 2)
  for (let i = 0; i < samples; i += 1) {
    const fade = 1 - i / samples
    data.writeInt16LE(Math.round(9000 * fade * Math.sin(2 * Math.PI * frequency * i / rate)), i * 2)
  }
  const header = Buffer.alloc(44)
  header.write('RIFF', 0, 'latin1')
  header.writeUInt32LE(36 + data.length, 4)
  header.write('WAVEfmt ', 8, 'latin1')
  header.writeUInt32LE(16, 16)
  header.writeUInt16LE(1, 20) // PCM
  header.writeUInt16LE(1, 22) // mono
  header.writeUInt32LE(rate, 24)
  header.writeUInt32LE(rate * 2, 28)
  header.writeUInt16LE(2, 32)
  header.writeUInt16LE(16, 34)
  header.write('data', 36, 'latin1')
  header.writeUInt32LE(data.length, 40)
  return Buffer.concat([header, data])
}
