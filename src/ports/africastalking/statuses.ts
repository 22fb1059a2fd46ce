/**
 * Africa's Talking's status words, from its SMS reference (developers.africastalking.com/docs/sms): the
 * per-recipient `statusCode` of a send answer and the `status` of a delivery report.
 */

export interface RecipientStatus {
  status: string;
  /** Accepted for sending: the delivery report comes later. */
  accepted: boolean;
  /** A refusal that may succeed if the same message is sent again later. */
  retryable: boolean;
}

/** `SMSMessageData.Recipients[].statusCode` as the Send SMS reference lists it. */
export const RECIPIENT_STATUSES: Readonly<Record<number, RecipientStatus>> = {
  100: { status: 'Processed', accepted: true, retryable: false },
  101: { status: 'Sent', accepted: true, retryable: false },
  102: { status: 'Queued', accepted: true, retryable: false },
  401: { status: 'RiskHold', accepted: false, retryable: false },
  402: { status: 'InvalidSenderId', accepted: false, retryable: false },
  403: { status: 'InvalidPhoneNumber', accepted: false, retryable: false },
  404: { status: 'UnsupportedNumberType', accepted: false, retryable: false },
  405: { status: 'InsufficientBalance', accepted: false, retryable: false },
  406: { status: 'UserInBlacklist', accepted: false, retryable: false },
  407: { status: 'CouldNotRoute', accepted: false, retryable: false },
  // Nigeria only: a promotional sender ID outside the hours the NCC allows (8 am to 8 pm). Later, it goes.
  409: { status: 'DoNotDisturbRejection', accepted: false, retryable: true },
  500: { status: 'InternalServerError', accepted: false, retryable: true },
  501: { status: 'GatewayError', accepted: false, retryable: true },
  502: { status: 'RejectedByGateway', accepted: false, retryable: false },
};

export type DeliveryOutcome = 'sent' | 'delivered' | 'undelivered' | 'failed';

/**
 * A delivery report's `status` in our words. Sent, Submitted and Buffered are on the way (`sent`); Success is
 * on the handset; Failed and AbsentSubscriber did not reach the handset (`undelivered`); Rejected (refused by
 * the mobile network) and Expired (discarded by the network's firewall, per the docs) refuse the message itself.
 */
export const DELIVERY_STATUSES: Readonly<Record<string, DeliveryOutcome>> = {
  Sent: 'sent',
  Submitted: 'sent',
  Buffered: 'sent',
  Success: 'delivered',
  Failed: 'undelivered',
  AbsentSubscriber: 'undelivered',
  Rejected: 'failed',
  Expired: 'failed',
};
