import { Price } from "./price";

/** Something that lowers a total. */
export interface Discount {
  apply(total: Price): Price;
  describe(): string;
}

/** Takes a percentage off the total. */
export class PercentageDiscount implements Discount {
  constructor(private readonly percent: number) {}

  apply(total: Price): Price {
    return total.times(1 - this.percent / 100);
  }

  describe(): string {
    return `${this.percent}% off`;
  }
}

/** Takes a fixed amount off the total, never going below zero. */
export class FixedAmountDiscount implements Discount {
  constructor(private readonly amount: Price) {}

  apply(total: Price): Price {
    const reduced = total.minus(this.amount);
    return reduced.cents < 0 ? total.times(0) : reduced;
  }

  describe(): string {
    return `${this.amount.format()} off`;
  }
}
