import type { Cart } from "./cart";
import type { Discount } from "./discount";

/** Renders a cart as a plain-text receipt. */
export function renderReceipt(cart: Cart, discount?: Discount): string {
  const rows = cart.items().map((line) => {
    const unit = line.product.price;
    const sum = unit.times(line.quantity);
    return `${line.quantity} x ${line.product.name.padEnd(20)} ${unit.format().padStart(10)} ${sum.format().padStart(10)}`;
  });
  rows.push(`Subtotal ${cart.subtotal().format()}`);
  if (discount) rows.push(`Discount ${discount.describe()}`);
  rows.push(`Total    ${cart.total(discount).format()}`);
  return rows.join("\n");
}
