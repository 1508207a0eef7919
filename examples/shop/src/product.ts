import { Price } from "./price";

export interface Product {
  readonly sku: string;
  readonly name: string;
  readonly price: Price;
}

export const catalog: readonly Product[] = [
  { sku: "TEA-01", name: "Green tea, 100 g", price: Price.of(4.5) },
  { sku: "MUG-02", name: "Stoneware mug", price: Price.of(12) },
  { sku: "POT-03", name: "Cast-iron teapot", price: Price.of(39.9) },
];

export function findProduct(sku: string): Product {
  const product = catalog.find((p) => p.sku === sku);
  if (product === undefined) throw new Error(`no product ${sku}`);
  return product;
}
