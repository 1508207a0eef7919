import { Cart } from "./cart";
import { FixedAmountDiscount, PercentageDiscount } from "./discount";
import { Price } from "./price";
import { findProduct } from "./product";
import { renderReceipt } from "./receipt";

export function demo(): string {
  const cart = new Cart().add(findProduct("TEA-01"), 3).add(findProduct("MUG-02")).add(findProduct("TEA-01"));
  const seasonal = new PercentageDiscount(10);
  const voucher = new FixedAmountDiscount(Price.of(5));
  const gift = findProduct("POT-03").price.times(0.5);
  return [renderReceipt(cart, seasonal), renderReceipt(cart, voucher), `Gift price ${gift.format()}`].join("\n\n");
}
