// The parts of Anki's protobuf messages (proto/anki/*.proto) that a package carries and the reader
// uses. Field numbers are Anki's; fields left out are skipped when decoding.
import protobuf from 'protobufjs'

const root = protobuf.Root.fromJSON({
  nested: {
    PackageMetadata: { fields: { version: { type: 'int32', id: 1 } } },
    MediaEntry: {
      fields: {
        name: { type: 'string', id: 1 },
        size: { type: 'uint32', id: 2 },
        sha1: { type: 'bytes', id: 3 },
        legacyZipFilename: { type: 'uint32', id: 255, options: { proto3_optional: true } }
      }
    },
    MediaEntries: { fields: { entries: { rule: 'repeated', type: 'MediaEntry', id: 1 } } },
    DeckNormal: {
      fields: {
        configId: { type: 'int64', id: 1 },
        description: { type: 'string', id: 4 },
        desiredRetention: { type: 'float', id: 10, options: { proto3_optional: true } }
      }
    },
    DeckFiltered: { fields: { reschedule: { type: 'bool', id: 1 } } },
    DeckKindContainer: {
      fields: { normal: { type: 'DeckNormal', id: 1 }, filtered: { type: 'DeckFiltered', id: 2 } }
    },
    DeckConfigConfig: {
      fields: {
        learnSteps: { rule: 'repeated', type: 'float', id: 1 },
        relearnSteps: { rule: 'repeated', type: 'float', id: 2 },
        fsrsParams4: { rule: 'repeated', type: 'float', id: 3 },
        fsrsParams5: { rule: 'repeated', type: 'float', id: 5 },
        fsrsParams6: { rule: 'repeated', type: 'float', id: 6 },
        maximumReviewInterval: { type: 'uint32', id: 16 },
        desiredRetention: { type: 'float', id: 37 },
        historicalRetention: { type: 'float', id: 40 },
        buryNew: { type: 'bool', id: 27 },
        buryReviews: { type: 'bool', id: 28 },
        buryInterdayLearning: { type: 'bool', id: 29 },
        ignoreRevlogsBeforeDate: { type: 'string', id: 46 }
      }
    },
    NotetypeConfig: {
      fields: {
        kind: { type: 'int32', id: 1 },
        sortFieldIdx: { type: 'uint32', id: 2 },
        css: { type: 'string', id: 3 }
      }
    },
    TemplateConfig: {
      fields: { qFormat: { type: 'string', id: 1 }, aFormat: { type: 'string', id: 2 } }
    }
  }
})

function decoder<T> (name: string): (bytes: Uint8Array) => T {
  const type = root.lookupType(name)
  return (bytes) => type.toObject(type.decode(bytes), { longs: Number, defaults: true, arrays: true }) as T
}

export const decodePackageMetadata = decoder<{ version: number }>('PackageMetadata')
export const decodeMediaEntries = decoder<{
  entries: Array<{ name: string, size: number, sha1: Uint8Array, legacyZipFilename?: number }>
}>('MediaEntries')
export const decodeDeckKind = decoder<{
  normal?: { configId: number, description: string, desiredRetention?: number }
  filtered?: { reschedule: boolean }
}>('DeckKindContainer')
export const decodeDeckConfig = decoder<{
  learnSteps: number[]
  relearnSteps: number[]
  fsrsParams4: number[]
  fsrsParams5: number[]
  fsrsParams6: number[]
  maximumReviewInterval: number
  desiredRetention: number
  historicalRetention: number
  buryNew: boolean
  buryReviews: boolean
  buryInterdayLearning: boolean
  ignoreRevlogsBeforeDate: string
}>('DeckConfigConfig')
export const decodeNotetypeConfig = decoder<{ kind: number, sortFieldIdx: number, css: string }>('NotetypeConfig')
export const decodeTemplateConfig = decoder<{ qFormat: string, aFormat: string }>('TemplateConfig')
