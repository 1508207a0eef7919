import type { Discount } from "./discount";
import { type Price, ZERO } from "./price";
import type { Product } from "./product";

export interface CartLine {
  readonly product: Product;
  quantity: number;
}

export class Cart {
  private readonly lines: CartLine[] = [];

  add(product: Product, quantity = 1): this {
    const line = this.lines.find((l) => l.product.sku === product.sku);
    if (line) line.quantity += quantity;
    else this.lines.push({ product, quantity });
    return this;
  }

  items(): readonly CartLine[] {
    return this.lines;
  }

  lineTotal(line: CartLine): Price {
    return line.product.price.times(line.quantity);
  }

  subtotal(): Price {
    return this.lines.reduce((sum, line) => sum.plus(this.lineTotal(line)), ZERO);
  }

  total(discount?: Discount): Price {
    const subtotal = this.subtotal();
    return discount ? discount.apply(subtotal) : subtotal;
  }
}
