/** An amount of money in cents, so that sums stay exact. */
export class Price {
  constructor(
    readonly cents: number,
    readonly currency: string = "EUR",
  ) {}

  static of(amount: number, currency = "EUR"): Price {
    return new Price(Math.round(amount * 100), currency);
  }

  /** This price multiplied by a quantity or a factor, rounded to whole cents. */
  times(factor: number): Price {
    return new Price(Math.round(this.cents * factor), this.currency);
  }

  plus(other: Price): Price {
    if (other.currency !== this.currency) {
      throw new Error(`cannot add ${other.currency} to ${this.currency}`);
    }
    return new Price(this.cents + other.cents, this.currency);
  }

  minus(other: Price): Price {
    return this.plus(other.times(-1));
  }

  format(): string {
    const sign = this.cents < 0 ? "-" : "";
    const abs = Math.abs(this.cents);
    return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")} ${this.currency}`;
  }
}

export const ZERO = new Price(0);
