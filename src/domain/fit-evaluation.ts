// How well parameters predict a user's reviews, in the two measures the FSRS
// optimizer and Anki report: log loss (the mean cross-entropy of the predicted
// recall against what happened) and RMSE(bins) (predicted against actual
// recall rates in bins of similar reviews). Both as the fsrs crate computes
// them, each review weighing the same; lower is better.
import type { TrainingItem } from './training-items.js'
import { predictedRecall, type Parameters, type ReviewStep } from './memory-model.js'

export interface FitMetrics { logLoss: number, rmseBins: number }

/**
 * The bin of a review in RMSE(bins): by the days since the answer before, the
 * number of answers on distinct days so far, and the lapses so far, each on a
 * logarithmic scale (the fsrs crate's r_matrix_index).
 */
export function binOf (reviews: readonly ReviewStep[]): string {
  const current = reviews[reviews.length - 1] as ReviewStep
  const deltaBin = Math.round(2.48 * Math.pow(3.62, Math.floor(Math.log(current.deltaT) / Math.log(3.62))) * 100)
  const longTerm = reviews.filter((review) => review.deltaT > 0).length
  const lengthBin = Math.round(1.99 * Math.pow(1.89, Math.floor(Math.log(longTerm + 1) / Math.log(1.89))))
  let lapses = 0
  for (let index = 0; index < reviews.length - 1; index++) {
    const review = reviews[index] as ReviewStep
    if (review.rating === 1 && review.deltaT > 0) lapses += 1
  }
  const lapseBin = lapses === 0 ? 0 : Math.round(1.65 * Math.pow(1.73, Math.floor(Math.log(lapses) / Math.log(1.73))))
  return `${deltaBin}|${lengthBin}|${lapseBin}`
}

/** Adds up predictions and outcomes, review by review, into the two measures. */
export class MetricsTally {
  private loss = 0
  private count = 0
  private readonly bins = new Map<string, { predicted: number, actual: number, count: number }>()

  add (predicted: number, recalled: boolean, bin: string): void {
    // a prediction of exactly 0 or 1 that is wrong would make the loss infinite
    const p = Math.min(1 - 1e-7, Math.max(1e-7, predicted))
    this.loss -= recalled ? Math.log(p) : Math.log(1 - p)
    this.count += 1
    let tally = this.bins.get(bin)
    if (tally === undefined) {
      tally = { predicted: 0, actual: 0, count: 0 }
      this.bins.set(bin, tally)
    }
    tally.predicted += predicted
    tally.actual += recalled ? 1 : 0
    tally.count += 1
  }

  get reviews (): number {
    return this.count
  }

  result (): FitMetrics {
    if (this.count === 0) throw new RangeError('no review to measure')
    let squares = 0
    for (const { predicted, actual, count } of this.bins.values()) {
      squares += Math.pow(predicted / count - actual / count, 2) * count
    }
    return { logLoss: this.loss / this.count, rmseBins: Math.sqrt(squares / this.count) }
  }
}

/** Adds each item's prediction by `w` to `tally`. */
export function tallyPredictions (tally: MetricsTally, w: Parameters, items: readonly TrainingItem[]): MetricsTally {
  for (const item of items) {
    const current = item.reviews[item.reviews.length - 1] as ReviewStep
    tally.add(predictedRecall(w, item.reviews), current.rating > 1, binOf(item.reviews))
  }
  return tally
}

/** Log loss and RMSE(bins) of `w` over `items`. */
export function evaluateParameters (w: Parameters, items: readonly TrainingItem[]): FitMetrics {
  return tallyPredictions(new MetricsTally(), w, items).result()
}

export interface TimeSeriesSplit { train: TrainingItem[], test: TrainingItem[] }

/**
 * The time-series splits of the fsrs crate: the items, in time order, cut into
 * `splits` + 1 segments; split k fits on segments 0..k and is tested on
 * segment k + 1 (the last takes what the rounding leaves). So parameters are
 * always judged on reviews made after every review they were fitted to.
 */
export function timeSeriesSplits (items: readonly TrainingItem[], splits = 5): TimeSeriesSplit[] {
  const segment = Math.floor(items.length / (splits + 1))
  if (segment === 0) return []
  return Array.from({ length: splits }, (_, k) => ({
    train: items.slice(0, (k + 1) * segment),
    test: items.slice((k + 1) * segment, k === splits - 1 ? items.length : (k + 2) * segment)
  }))
}
