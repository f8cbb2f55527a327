/** The request body stopped arriving: its client went away or broke the connection (`boundedText`'s `broken`). */
export class ClientGone extends Error {
  constructor() {
    super('The request body stopped arriving.');
    this.name = 'ClientGone';
  }
}
