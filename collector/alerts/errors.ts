/** A named item (trigger, alert, event, dampening, action) does not exist for the tenant: 404. */
export class NotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NotFoundError";
  }
}

/** The request cannot be carried out as asked (duplicate, wrong trigger type, bad reference): 400. */
export class InvalidRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidRequestError";
  }
}
